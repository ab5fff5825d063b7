import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../src/aws/dynamodb.js';
import { readRawBody } from '../../src/aws/raw-body.js';

/**
 * readRawBody with the real SDK client against a local HTTP peer that answers as DynamoDB does:
 * the reader gets the body's text once, the SDK deserializes what the reader gives back, and an
 * error response reaches the SDK untouched.
 */
let server: Server;
let endpoint = '';
let next: { status: number; body: string } = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(next.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'test' });
      res.end(next.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const query = () => new QueryCommand({ TableName: 'legs', KeyConditionExpression: 'lb = :b', ExpressionAttributeValues: { ':b': '2027-01' } });

describe('readRawBody', () => {
  it('hands the body text to the reader once, and the SDK reads what the reader returns', async () => {
    const client = createDocumentClient({ endpoint, maxAttempts: 1 });
    const big = JSON.stringify({ Items: [{ id: { S: 'a' } }, { id: { S: 'b' } }], Count: 2, LastEvaluatedKey: { id: { S: 'b' }, lb: { S: '2027-01' } } });
    next = { status: 200, body: big };
    const seen: string[] = [];
    const command = query();
    readRawBody(command.middlewareStack, (body) => {
      seen.push(body);
      return JSON.stringify({ ...(JSON.parse(body) as object), Items: [] });
    });
    const out = await client.send(command);
    expect(seen).toEqual([big]);
    expect(out.Items).toEqual([]);
    expect(out.Count).toBe(2);
    // The document client still unmarshalls what is left.
    expect(out.LastEvaluatedKey).toEqual({ id: 'b', lb: '2027-01' });
    client.destroy();
  });

  it('leaves an error response to the SDK: the reader is not called and the error keeps its name', async () => {
    const client = createDocumentClient({ endpoint, maxAttempts: 1 });
    next = {
      status: 400,
      body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException', message: 'Requested resource not found' }),
    };
    let calls = 0;
    const command = query();
    readRawBody(command.middlewareStack, (body) => {
      calls += 1;
      return body;
    });
    await expect(client.send(command)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(calls).toBe(0);
    client.destroy();
  });

  it('without it, the SDK reads the items itself (the reader is what takes them out)', async () => {
    const client = createDocumentClient({ endpoint, maxAttempts: 1 });
    next = { status: 200, body: JSON.stringify({ Items: [{ id: { S: 'a' } }], Count: 1 }) };
    const out = await client.send(query());
    expect(out.Items).toEqual([{ id: 'a' }]);
    client.destroy();
  });
});
