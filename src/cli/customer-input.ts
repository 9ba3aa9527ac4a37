// `customers create` and `customers update`: one flag per CustomerInput field (spec order),
// merged over an optional JSON document (`--from FILE|-`). The flags win over the file.
import type { Interfaces } from '@oclif/core';
import { Flags } from './oclif.js';
import { CUSTOMER_FIELDS, CUSTOMER_STATUSES, CUSTOMER_TYPES, ID_TYPES } from '../contract/customer.js';
import { CardctlError, usageError } from '../errors.js';
import { readInputFile, readInputStream } from '../client/bounded-read.js';

const kebab = (field: string): string => field.replace(/_/g, '-');

const ENUMS: Partial<Record<string, readonly string[]>> = {
  customer_type: CUSTOMER_TYPES,
  id_type: ID_TYPES,
  status: CUSTOMER_STATUSES,
};
const HELP: Partial<Record<string, string>> = {
  id_front_image: 'document front: base64 text, or @FILE (the image, base64-encoded here)',
  terms_of_service_accepted: 'the cardholder accepted the terms of service (must be true)',
  date_of_birth: 'YYYY-MM-DD, at least 18 years ago',
  country: 'ISO 3166-1 alpha-3, e.g. NGA',
  phone_number: 'digits only, no country code',
  dial_code: 'e.g. +234',
};

/** The field flags; `status` only on update. */
export function customerFieldFlags(forUpdate: boolean) {
  const flags: Interfaces.FlagInput = {};
  for (const f of CUSTOMER_FIELDS) {
    if (f === 'status' && !forUpdate) continue;
    if (f === 'terms_of_service_accepted') {
      flags[kebab(f)] = Flags.boolean({ description: HELP[f]!, allowNo: forUpdate, helpGroup: 'CUSTOMER' });
      continue;
    }
    flags[kebab(f)] = Flags.string({
      description: HELP[f] ?? f.replace(/_/g, ' '),
      options: ENUMS[f] ? [...ENUMS[f]!] : undefined,
      helpGroup: 'CUSTOMER',
    });
  }
  return {
    ...flags,
    from: Flags.string({ description: 'a JSON object of fields, from a FILE or - (stdin); flags override it' }),
  };
}

async function readFrom(from: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = (from === '-' ? await readInputStream(process.stdin, '--from') : readInputFile(from, '--from')).toString(
      'utf8',
    );
  } catch (err) {
    if (err instanceof CardctlError) throw err;
    throw usageError(
      `cannot read --from "${from}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
      'Check the path, or use --from - to read stdin.',
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(
      `--from ${from} is not valid JSON: ${(err as Error).message}.`,
      'It must hold one JSON object of CustomerInput fields, e.g. {"first_name": "Ada", ...}.',
    );
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw usageError(
      `--from ${from} must hold a JSON object, not ${Array.isArray(value) ? 'an array' : typeof value}.`,
    );
  return value as Record<string, unknown>;
}

async function imageValue(value: string): Promise<string> {
  if (!value.startsWith('@')) return value;
  const file = value.slice(1);
  try {
    return readInputFile(file, '--id-front-image').toString('base64');
  } catch (err) {
    if (err instanceof CardctlError) throw err;
    throw usageError(
      `cannot read --id-front-image file "${file}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
    );
  }
}

/** The body: `--from`'s object with every given flag over it, keys as the API names them. */
export async function customerBody(flags: Record<string, unknown>): Promise<Record<string, unknown>> {
  const body = typeof flags.from === 'string' ? await readFrom(flags.from) : {};
  for (const f of CUSTOMER_FIELDS) {
    const v = flags[kebab(f)];
    if (v === undefined) continue;
    body[f] = f === 'id_front_image' && typeof v === 'string' ? await imageValue(v) : v;
  }
  return body;
}
