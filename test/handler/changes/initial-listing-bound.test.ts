import { beforeEach, describe, expect, it } from '@jest/globals';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { LISTING_SCANS_LIMIT, scanListing } from '../../../src/changes/store-parts/initial-listing.js';
import { testDocumentClient } from '../../support/handlers.js';

const ddb = mockClient(DynamoDBDocumentClient);

describe('scanListing: a bounded number of Scan requests whatever the index answers', () => {
  beforeEach(() => {
    ddb.reset();
  });

  it('pages that settle no leg (empty, with a next key) end in an error after LISTING_SCANS_LIMIT requests', async () => {
    ddb.on(ScanCommand).resolves({ Items: [], LastEvaluatedKey: { id: 'x', ls: 'x' } });
    await expect(scanListing(testDocumentClient(), 'legs', '~log#', undefined, 10, Date.UTC(2026, 10, 28))).rejects.toThrow(/settled no leg/);
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(LISTING_SCANS_LIMIT);
  });

  it('the last page of the index ends the read without an error', async () => {
    ddb.on(ScanCommand).resolves({ Items: [] });
    await expect(scanListing(testDocumentClient(), 'legs', '~log#', undefined, 10, Date.UTC(2026, 10, 28))).resolves.toEqual({ legs: [], next: undefined, facts: [] });
    expect(ddb.commandCalls(ScanCommand)).toHaveLength(1);
  });
});
