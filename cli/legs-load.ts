import './quiet-node-notice.js';
import { runCommand } from './command.js';
import { legsLoadCommand } from './legs-load-command.js';

/** `npm run legs:load -- FILE [...]`: the command of cli/legs-load-command.ts, as a process. */
runCommand(() => legsLoadCommand(process.argv.slice(2)));
