// Test hook (node --import): SIGUSR2 makes the process crash with an uncaught exception, the way a
// bug would, so a test can check what a crash leaves behind.
process.on('SIGUSR2', () => {
  setImmediate(() => {
    throw new Error('simulated crash (test hook)');
  });
});
