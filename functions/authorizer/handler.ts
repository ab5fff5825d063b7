// Placeholder: the authorizer is being written (issue 3). Replaced wholesale by its owner.
export const handler = (): Promise<{ isAuthorized: boolean }> => Promise.resolve({ isAuthorized: true });
