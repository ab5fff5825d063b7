import './quiet-node-notice.js';
import { runCommand } from './command.js';
import { sourcesCommand } from './sources-command.js';

/** `npm run sources -- <command>`: the command of cli/sources-command.ts, as a process. */
runCommand(() => sourcesCommand(process.argv.slice(2)));
