// The readings both ingestion benchmarks write (run.mjs through the gateway, micro.mjs into the
// service's code): a total station's points near their reference coordinates.

/** Reference coordinates of every benchmark point, metres. */
export const REFERENCE = { x: 3512345.1, y: 512345.6, z: 45.3 };

/**
 * Share of readings over the warning threshold (BENCH_ABNORMAL_SHARE, 0.01 by default): each such
 * reading opens or updates an alarm, and the normal readings after it count towards clearing it,
 * so the alarm rules run in the write path as they do on a site.
 */
const ABNORMAL_SHARE = Number(process.env.BENCH_ABNORMAL_SHARE ?? 0.01);

/**
 * One reading: x and y 1–9 mm from the reference, written to the millimetre as instruments export
 * them; z within ±3 mm, and about 1 % of readings 12 mm down (over a 10 mm warning threshold).
 */
export function reading() {
  const dz = Math.random() < ABNORMAL_SHARE ? 12 : Math.round((Math.random() * 6 - 3) * 1000) / 1000;
  return {
    x: Math.round((REFERENCE.x + (1 + Math.floor(Math.random() * 9)) / 1000) * 1000) / 1000,
    y: Math.round((REFERENCE.y + (1 + Math.floor(Math.random() * 9)) / 1000) * 1000) / 1000,
    z: Math.round((REFERENCE.z + dz / 1000) * 1e6) / 1e6,
  };
}
