import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * A DynamoDB client that passes every command to a real one (DynamoDB Local) and records each:
 * its name, its input, and the read or write units DynamoDB reports for it (asked with
 * ReturnConsumedCapacity: TOTAL).
 */
export interface CountedCommand {
  name: string;
  input: Record<string, unknown>;
  units: number;
}

export interface CountingClient {
  client: DynamoDBDocumentClient;
  commands: CountedCommand[];
  /** The commands named (ScanCommand, QueryCommand, GetCommand, ...) since the last `reset`. */
  named(name: string): CountedCommand[];
  /** The units of every command since the last `reset`. */
  units(): number;
  reset(): void;
}

type Consumed = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
const unitsOf = (c: Consumed): number => (Array.isArray(c) ? c.reduce((n, x) => n + (x.CapacityUnits ?? 0), 0) : (c?.CapacityUnits ?? 0));

export function countingClient(real: DynamoDBDocumentClient): CountingClient {
  const commands: CountedCommand[] = [];
  const send = async (command: { constructor: { name: string }; input: Record<string, unknown> }): Promise<unknown> => {
    command.input.ReturnConsumedCapacity ??= 'TOTAL';
    const out = (await real.send(command as never)) as { ConsumedCapacity?: Consumed };
    commands.push({ name: command.constructor.name, input: command.input, units: unitsOf(out.ConsumedCapacity) });
    return out;
  };
  const client = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop === 'send') return send;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return {
    client,
    commands,
    named: (name) => commands.filter((c) => c.name === name),
    units: () => commands.reduce((n, c) => n + c.units, 0),
    reset: () => void commands.splice(0),
  };
}
