import { randomBytes } from 'node:crypto';
import { CommandError } from './command.js';
import type { CommandTables } from './connect.js';
import { print } from './keys-output.js';
import { readSeller, writeSeller } from '../src/enquiries/index.js';
import { isClientId } from '../src/keys/format.js';
import { checkTargetUrl, TargetRefused, type TargetPolicy } from '../src/watches/index.js';

/**
 * `sources set SOURCE --seller CLIENT [--enquiry-url URL]` (docs/sources.md, "Sellers"): the client
 * that answers the source's enquiries, and where new ones are POSTed, signed with a secret printed once.
 */
export interface SellerChange {
  clientId: string;
  enquiryUrl: string | null;
}

/** The flags checked: `--enquiry-url` only with `--seller`, and as a watch's URL (https; http to this machine locally). */
export function sellerChange(values: { seller?: string | undefined; 'enquiry-url'?: string | undefined }, targets: TargetPolicy): SellerChange | undefined {
  if (values.seller === undefined) {
    if (values['enquiry-url'] !== undefined) throw CommandError.usage('--enquiry-url', 'only applies with --seller');
    return undefined;
  }
  if (!isClientId(values.seller)) throw CommandError.usage('--seller', `'${values.seller}' is not a client id (cli_ and 20 letters and digits; npm run keys -- list shows them)`);
  let enquiryUrl: string | null = null;
  if (values['enquiry-url'] !== undefined) {
    try {
      enquiryUrl = checkTargetUrl(values['enquiry-url'], targets).href;
    } catch (err) {
      if (err instanceof TargetRefused) throw CommandError.usage('--enquiry-url', err.message);
      throw err;
    }
  }
  return { clientId: values.seller, enquiryUrl };
}

export async function applySeller(tables: CommandTables, source: string, change: SellerChange, at: number): Promise<void> {
  const secret = change.enquiryUrl === null ? null : `whsec_${randomBytes(32).toString('base64')}`;
  await writeSeller(tables.client, tables.legsTableName, { source, ...change, secret, setAt: at });
  print(`Seller of ${source}: ${change.clientId}; its keys with enquiry:answer see and answer the enquiries on its legs`);
  if (secret !== null) print(`Each new enquiry is POSTed to ${change.enquiryUrl} as enquiry.created, signed with this secret (shown once):\n  ${secret}`);
}

export async function describeSeller(tables: CommandTables, source: string): Promise<string> {
  const seller = await readSeller(tables.client, tables.legsTableName, source);
  if (seller === undefined) return 'Seller: none (its legs take no enquiries)';
  return `Seller: ${seller.clientId}${seller.enquiryUrl === null ? '' : `, enquiries POSTed to ${seller.enquiryUrl}`}`;
}
