/** The owner's operations on a watch: its public surface for other folders of src/. */
export { attemptNow, resultOf, type AttemptReport, type AttemptResult } from './attempt.js';
export { rotateWatchSecret, SECRET_OVERLAP_MS, type RotatedSecret } from './rotate-secret.js';
export { replayDelivery, sendTestEvent, TEST_EVENT_TYPE } from './send-now.js';
export { changeWatch } from './update-watch.js';
