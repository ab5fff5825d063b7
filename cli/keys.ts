import './quiet-node-notice.js';
import { runCommand } from './command.js';
import { keysCommand } from './keys-command.js';

/** `npm run keys -- <command>`: the command of cli/keys-command.ts, as a process. */
runCommand(() => keysCommand(process.argv.slice(2)));
