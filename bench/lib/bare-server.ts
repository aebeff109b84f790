import { join } from 'node:path';
import { freePort, spawnLogged, TrackedChild, waitForLogLine } from './children';

export interface BareServer extends TrackedChild {
  baseUrl: string;
}

/** Starts bench/lib/bare-ping-server.js in its own `node` process (the same layout as the service under test). */
export function startBareServer(logFile: string, nodeArgs: string[] = []): Promise<BareServer> {
  return startPingServer('bare-ping-server.js', logFile, nodeArgs);
}

/** Starts bench/lib/minimal-nest-ping-server.js: a Nest application with nothing but a ping route. */
export function startMinimalNestServer(logFile: string, nodeArgs: string[] = []): Promise<BareServer> {
  return startPingServer('minimal-nest-ping-server.js', logFile, nodeArgs);
}

async function startPingServer(script: string, logFile: string, nodeArgs: string[]): Promise<BareServer> {
  const port = await freePort();
  const tracked = spawnLogged(process.execPath, [...nodeArgs, join(__dirname, script)], {
    logFile,
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', NODE_PATH: join(__dirname, '..', '..', 'node_modules') },
  });
  await waitForLogLine(tracked, (line) => (line.includes('"msg":"listening"') ? true : undefined), 15_000);
  return { ...tracked, baseUrl: `http://127.0.0.1:${port}` };
}
