export { createHookReceiver, type DeliveryOutcome, type HookBusiness, type HookReceiver, type HookReceiverOptions, type HookSettings } from './receiver.js';
export { startHookServer, type HookServer } from './hook-server.js';
export { signBody, verifySignature, verifyToken, type SignatureSettings, type Verdict } from './signature.js';
