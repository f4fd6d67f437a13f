import { randomToken } from '@mp/kit';

/**
 * A data record id (`dat_` + 20 base36 characters, the shape of every id): 9 characters of the
 * creation time in milliseconds, then 11 random ones (~57 bits). Ids of one moment sort together,
 * so the id index of the data table is appended to at its right edge instead of being split at
 * random pages, which keeps bulk inserts fast.
 */
export function newDataIds(count: number, nowMs: number): string[] {
  const time = nowMs.toString(36).padStart(9, '0');
  const random = randomToken(11 * count);
  const ids = new Array<string>(count);
  for (let i = 0; i < count; i++) ids[i] = `dat_${time}${random.slice(i * 11, i * 11 + 11)}`;
  return ids;
}
