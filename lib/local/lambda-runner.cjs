'use strict';
// The Lambda runtime's part, for one bundled function in a child process (lib/local/lambda-process.ts):
// require the bundle once (the init), then one invocation per message, answered in order. The context
// comes over IPC as data; its clock is rebuilt here.
const { handler } = require(process.argv[2]);

process.on('message', (message) => {
  const { id, event, context } = message;
  const deadline = Date.now() + context.timeoutMs;
  const unsupported = () => {
    throw new Error('callback-style completion is not supported; return a promise');
  };
  const ctx = {
    callbackWaitsForEmptyEventLoop: false,
    functionName: context.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: context.invokedFunctionArn,
    memoryLimitInMB: '256',
    awsRequestId: context.awsRequestId,
    logGroupName: `/aws/lambda/${context.functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
  Promise.resolve()
    .then(() => handler(event, ctx))
    .then(
      (response) => process.send({ id, ok: true, response: response === undefined ? null : response }),
      (err) => process.send({ id, ok: false, error: { name: err && err.name, message: String((err && err.message) || err) } }),
    );
});
process.send({ ready: true });
