// Creates or drops one database on a MySQL/MariaDB server, with the mariadb driver this repository installs (no
// command-line client needed). Usage: node mysql-database.mjs create|drop <server URL> <database name>
import { createRequire } from "node:module";

const [action, server, name] = process.argv.slice(2);
const mariadb = createRequire(new URL("../../package.json", import.meta.url))("mariadb");
const url = new URL(server);
const connection = await mariadb.createConnection({
  host: url.hostname,
  port: Number(url.port || 3306),
  user: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
});
try {
  await connection.query(action === "create" ? `CREATE DATABASE \`${name}\`` : `DROP DATABASE IF EXISTS \`${name}\``);
} finally {
  await connection.end();
}
