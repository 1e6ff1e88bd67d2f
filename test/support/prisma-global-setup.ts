// The ORM tests (and test/types) use the Prisma client of examples/prisma, generated, not committed:
// a run of vitest alone (not through `npm test`, whose typecheck generates it first) generates it.
import { generatePrismaClient } from '../../scripts/prisma-generate.js';

export default function setup(): void {
  generatePrismaClient();
}
