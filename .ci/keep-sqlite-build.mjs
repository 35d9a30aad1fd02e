// Keeps the better-sqlite3 binary that `npm ci` compiled where prebuild-install looks before it downloads.
//
// better-sqlite3's install runs `prebuild-install || node-gyp rebuild`: prebuild-install first looks for
// `<npm cache>/_prebuilds/<hash>-<tarball>` and then fetches the tarball from GitHub, which this machine cannot
// reach, so every clean install compiled SQLite again (82 s of `npm ci`, 35 s without the compile). This stores the
// binary the machine built, under the name prebuild-install derives from the download URL (its util.cachedPrebuild),
// so later installs of the same version for the same Node ABI unpack it instead, as npm's own cache saves the
// downloads. Nothing is written when the tarball is already there, or when the install left no binary.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const pkgDir = 'node_modules/better-sqlite3';
const binary = 'build/Release/better_sqlite3.node';
const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const tarball = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
const url = `https://github.com/WiseLibs/better-sqlite3/releases/download/v${version}/${tarball}`;
const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const cached = path.join(
  npmCache,
  '_prebuilds',
  `${createHash('sha512').update(url).digest('hex').slice(0, 6)}-${tarball}`,
);

if (!existsSync(cached) && existsSync(path.join(pkgDir, binary))) {
  mkdirSync(path.dirname(cached), { recursive: true });
  execFileSync('tar', ['czf', `${cached}.part`, '-C', pkgDir, binary]);
  execFileSync('mv', [`${cached}.part`, cached]);
  process.stdout.write(`kept ${binary} as ${cached}\n`);
}
