import { PGlite } from '@electric-sql/pglite';
const n = Number(process.argv[2] ?? 1);
const mb = () => Math.round(process.memoryUsage().rss / 1e6);
console.log('start', mb());
const dbs = [];
for (let i = 0; i < n; i++) {
  const db = await PGlite.create(process.argv[3] ? `${process.argv[3]}/${i}` : 'memory://');
  await db.exec('create table if not exists t(a int);');
  dbs.push(db);
  console.log('after', i + 1, mb());
}
globalThis.gc?.();
await new Promise((r) => setTimeout(r, 2000));
console.log('idle', mb(), JSON.stringify(process.memoryUsage()));
const r = await dbs[0].query("select name, setting, unit from pg_settings where name in ('shared_buffers','work_mem','wal_buffers','maintenance_work_mem','max_connections','temp_buffers')");
console.log(r.rows);
