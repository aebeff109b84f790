import { render } from 'preact';
import '../shared/styles.css';

render(<p>Console</p>, document.getElementById('app')!);
