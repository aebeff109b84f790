import { join } from 'node:path';
import { freePort, spawnLogged, TrackedChild, waitForLogLine } from './children';

export interface BareServer extends TrackedChild {
  baseUrl: string;
}

/** Starts bench/lib/bare-ping-server.js in its own `node` process (the same layout as the service under test). */
export async function startBareServer(logFile: string, nodeArgs: string[] = []): Promise<BareServer> {
  const port = await freePort();
  const tracked = spawnLogged(process.execPath, [...nodeArgs, join(__dirname, 'bare-ping-server.js')], {
    logFile,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1' },
  });
  await waitForLogLine(tracked, (line) => (line.includes('"msg":"listening"') ? true : undefined), 15_000);
  return { ...tracked, baseUrl: `http://127.0.0.1:${port}` };
}
