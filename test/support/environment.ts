/** Sets `vars` in process.env (undefined deletes one); returns what puts the environment back. */
export function setEnvironment(vars: Record<string, string | undefined>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(vars);
  return () => apply(before);
}

/** Runs `work` with `vars` set (undefined: unset), then puts the environment back. */
export async function withEnv<T>(vars: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const restore = setEnvironment(vars);
  try {
    return await work();
  } finally {
    restore();
  }
}
