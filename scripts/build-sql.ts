// Writes src/postgres/sql-sources.ts from src/postgres/sql/*.sql (see scripts/sql-module.ts).
import { writeFileSync } from 'node:fs';
import { renderSqlModule, SQL_MODULE_FILE } from './sql-module.js';

writeFileSync(SQL_MODULE_FILE, renderSqlModule());
console.log(`wrote ${SQL_MODULE_FILE.pathname}`);
