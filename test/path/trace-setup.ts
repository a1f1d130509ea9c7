import { installRecorder } from './trace-recorder.js';

installRecorder();
