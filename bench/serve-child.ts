// The service process of bench/serve.bench.ts: `urldedup serve` as the CLI runs it, arguments
// passed through (node dist/bench/serve-child.js --db DIR --port 0 …).
import { runServeCommand } from '../src/cli/commands/serve.js';

process.exitCode = await runServeCommand(process.argv.slice(2));
