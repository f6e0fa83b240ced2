import { Level } from 'level';
const db = new Level(process.argv[2], { valueEncoding: 'utf8' });
for await (const [k, v] of db.iterator()) if (k.includes(process.argv[3])) console.log(JSON.stringify(k), v.slice(0, 300));
await db.close();
