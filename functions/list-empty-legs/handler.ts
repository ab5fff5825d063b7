// Placeholder: the list function is being written (issue 2). Replaced wholesale by its owner.
export const handler = (): Promise<{ statusCode: number }> => Promise.resolve({ statusCode: 501 });
