import { spawn } from 'node:child_process';
import { createCipheriv, createHash } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A large SCORM 1.2 package for the import benchmark, generated deterministically: the same settings give the
 * same files, names, sizes and bytes (and, with the same `zip` build, the same zip file).
 *
 * - imsmanifest.xml: one organization, one item, one SCO resource (href index.html) listing every file;
 * - index.html: the SCO (a page that would call LMSInitialize);
 * - assets/dNNN/fNNNNN.ext: 100 files per folder; 9 in 10 are incompressible bytes (an AES-CTR key stream,
 *   fast and reproducible) named .jpg/.png/.mp4/.bin and stored uncompressed in the zip (`zip -n`, as zip
 *   tools do for media), 1 in 10 is text (.html/.js/.css) and deflated. Sizes are log-uniformly spread (the
 *   largest about 50 times the smallest) and scaled so the package holds `totalBytes`.
 */

export interface PackageOptions {
  /** Uncompressed bytes of all files together (approximately: the manifest adds a little). */
  totalBytes: number;
  /** Files in the package, manifest and index.html included. */
  files: number;
  /** zip compression level of the text files (0–9; the media files are always stored). */
  zipLevel?: number;
  seed?: number;
}

export interface GeneratedPackage {
  zipPath: string;
  zipBytes: number;
  /** Sum of the files' sizes (what an extraction writes). */
  contentBytes: number;
  files: number;
  /** Bytes of incompressible content. */
  randomBytes: number;
  sha256: string;
  writeMs: number;
  zipMs: number;
}

const MEDIA_EXT = ['jpg', 'png', 'mp4', 'bin'];
const TEXT_EXT = ['html', 'js', 'css'];
const FIXED_TIME = new Date('2024-01-01T00:00:00Z');

/** mulberry32: a small, fast, seedable PRNG (deterministic sizes and choices). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function textContent(index: number, ext: string, size: number): Buffer {
  const lines: string[] = [];
  let length = 0;
  for (let j = 0; length < size; j++) {
    const line =
      ext === 'html'
        ? `<p class="c${j % 7}">Page ${index}, paragraph ${j}: the quick brown fox jumps over the lazy dog.</p>\n`
        : ext === 'js'
          ? `function f${index}_${j}(x) { return x * ${j % 97} + ${index % 89}; } // step ${j}\n`
          : `.c${index}-${j} { margin: ${j % 13}px; padding: ${j % 5}px; color: #${(j * 2654435761) % 0xffffff} }\n`;
    lines.push(line);
    length += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, size);
}

function manifest(paths: string[]): string {
  const files = paths.map((p) => `        <file href="${p}"/>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="lcds-bench-import" version="1.0"
    xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="org">
    <organization identifier="org">
      <title>LCDS import benchmark (${paths.length} files)</title>
      <item identifier="item_1" identifierref="sco_1">
        <title>Large SCO</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="sco_1" type="webcontent" adlcp:scormtype="sco" href="index.html">
${files}
    </resource>
  </resources>
</manifest>
`;
}

/** Generates the package's files in `workDir/src`, zips them to `workDir/package.zip` and removes the files. */
export async function generateScorm12Package(workDir: string, options: PackageOptions): Promise<GeneratedPackage> {
  const seed = options.seed ?? 20240101;
  const nAssets = Math.max(1, Math.floor(options.files) - 2);
  const rand = prng(seed);
  const weights = Array.from({ length: nAssets }, () => Math.exp(Math.log(50) * rand()));
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const budget = Math.max(nAssets, options.totalBytes - 64 * 1024);
  const sizes = weights.map((w) => Math.max(1, Math.round((w / weightSum) * budget)));

  const src = join(workDir, 'src');
  mkdirSync(src, { recursive: true });
  const writeStart = Date.now();
  const key = createHash('sha256').update(`lcds-bench-${seed}`).digest().subarray(0, 16);
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(1024 * 1024);
  const assetPaths: string[] = [];
  const dirs = new Set<string>();
  let contentBytes = 0;
  let randomBytes = 0;
  for (let i = 0; i < nAssets; i++) {
    const isText = i % 10 === 9;
    const ext = isText ? TEXT_EXT[Math.floor(i / 10) % TEXT_EXT.length] : MEDIA_EXT[i % MEDIA_EXT.length];
    const rel = `assets/d${String(Math.floor(i / 100)).padStart(3, '0')}/f${String(i).padStart(5, '0')}.${ext}`;
    const path = join(src, rel);
    const folder = dirname(path);
    if (!dirs.has(folder)) {
      mkdirSync(folder, { recursive: true });
      dirs.add(folder);
    }
    if (isText) {
      writeFileSync(path, textContent(i, ext, sizes[i]));
    } else {
      const fd = openSync(path, 'w');
      try {
        for (let left = sizes[i]; left > 0; ) {
          const n = Math.min(left, zeros.length);
          writeSync(fd, cipher.update(zeros.subarray(0, n)));
          left -= n;
        }
      } finally {
        closeSync(fd);
      }
      randomBytes += sizes[i];
    }
    contentBytes += sizes[i];
    assetPaths.push(rel);
  }
  const index = '<!doctype html><html><head><title>LCDS bench SCO</title></head><body><script>/* LMSInitialize */</script></body></html>\n';
  writeFileSync(join(src, 'index.html'), index);
  const allPaths = ['index.html', ...assetPaths];
  const manifestText = manifest(allPaths);
  writeFileSync(join(src, 'imsmanifest.xml'), manifestText);
  contentBytes += Buffer.byteLength(index) + Buffer.byteLength(manifestText);
  const entries = ['imsmanifest.xml', ...allPaths];
  for (const rel of entries) utimesSync(join(src, rel), FIXED_TIME, FIXED_TIME);
  const writeMs = Date.now() - writeStart;

  const zipPath = join(workDir, 'package.zip');
  const zipStart = Date.now();
  const level = Math.min(9, Math.max(0, Math.round(options.zipLevel ?? 6)));
  await runZip(src, ['-q', '-X', `-${level}`, '-n', MEDIA_EXT.map((e) => `.${e}`).join(':'), zipPath, '-@'], entries.join('\n') + '\n');
  const zipMs = Date.now() - zipStart;
  rmSync(src, { recursive: true, force: true });

  return {
    zipPath,
    zipBytes: statSync(zipPath).size,
    contentBytes,
    files: entries.length,
    randomBytes,
    sha256: await sha256File(zipPath),
    writeMs,
    zipMs,
  };
}

function runZip(cwd: string, args: string[], stdin: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('zip', args, { cwd, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`zip exited with ${code}: ${stderr.trim()}`))));
    child.stdin.end(stdin);
  });
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
