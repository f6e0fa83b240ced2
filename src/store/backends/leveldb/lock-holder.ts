/**
 * Who holds a LevelDB folder's LOCK, without taking it: LevelDB locks the `LOCK` file with fcntl
 * (env_posix.cc `LockOrUnlock`), which Linux lists in /proc/locks by device and inode. Taking the
 * lock to find out would mean opening the database, which replays its log and writes a new
 * manifest: not something to do to a damaged store or one that is being repaired.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The pid of the process holding the folder's LOCK; `undefined` when nobody holds it; `null` where
 * this cannot be told (no /proc/locks: not Linux).
 */
export function lockHolder(location: string): number | undefined | null {
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return null;
  }
  let st;
  try {
    st = statSync(join(location, 'LOCK'), { bigint: true });
  } catch {
    return undefined;
  }
  const major = Number(((st.dev >> 8n) & 0xfffn) | ((st.dev >> 32n) & ~0xfffn));
  const minor = Number((st.dev & 0xffn) | ((st.dev >> 12n) & ~0xffn));
  for (const line of locks.split('\n')) {
    // "1: POSIX  ADVISORY  WRITE 1234 08:01:5678 0 EOF" (a blocked waiter's line has "->" after the id)
    const f = line.trim().split(/\s+/);
    if (f[1] === '->' || f[1] !== 'POSIX') continue;
    const [maj, min, ino] = (f[5] ?? '').split(':');
    if (ino === undefined || BigInt(ino) !== st.ino) continue;
    if (parseInt(maj!, 16) !== major || parseInt(min!, 16) !== minor) continue;
    return Number(f[4]);
  }
  return undefined;
}
