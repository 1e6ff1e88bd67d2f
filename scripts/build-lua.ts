// Writes src/redis/lua-sources.ts from src/redis/scripts/*.lua (see scripts/lua-module.ts).
import { writeFileSync } from 'node:fs';
import { MODULE_FILE, renderLuaModule } from './lua-module.js';

writeFileSync(MODULE_FILE, renderLuaModule());
console.log(`wrote ${MODULE_FILE.pathname}`);
