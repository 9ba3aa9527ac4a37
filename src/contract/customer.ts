// Validation of customer request bodies (spec: CustomerInput and its conditional rules), shared
// by the mock (422 `errors`) and the CLI (refuses a bad body before sending, same messages).
// Every problem is reported at once, one list per field, and no input ever makes these throw.
import { z } from 'zod';

export const ID_TYPES = [
  'bvn',
  'nin',
  'passport',
  'drivers_license',
  'national_id',
  'vnin',
  'voters_card',
  'ghana_card',
] as const;
export type IdType = (typeof ID_TYPES)[number];
/** Checked against a national database: no image, country must be NGA (conditional rule 1). */
export const DATABASE_ID_TYPES = ['bvn', 'nin'] as const satisfies readonly IdType[];
/** Every other id type is a document and needs `id_front_image` (conditional rule 2). */
export const DOCUMENT_ID_TYPES = [
  'passport',
  'drivers_license',
  'national_id',
  'vnin',
  'voters_card',
  'ghana_card',
] as const satisfies readonly IdType[];
export const CUSTOMER_TYPES = ['individual', 'business'] as const;
export const CUSTOMER_STATUSES = ['active', 'disabled'] as const;
export const MAX_ID_FRONT_IMAGE_LENGTH = 4_200_000;

/**
 * Every row of the spec's CustomerInput table, in the spec's order (deterministic serialization,
 * one CLI flag per field). `status` is the last row and is accepted by update only; create
 * drops it like any unknown key. CUSTOMER_CREATE_FIELDS is the same list without it.
 */
export const CUSTOMER_FIELDS = [
  'customer_type',
  'business_name',
  'registration_number',
  'first_name',
  'last_name',
  'email',
  'phone_number',
  'dial_code',
  'date_of_birth',
  'id_type',
  'id_number',
  'id_front_image',
  'line1',
  'city',
  'state',
  'postal_code',
  'country',
  'occupation',
  'employment_status',
  'account_purpose',
  'annual_salary',
  'expected_monthly_volume',
  'place_of_birth',
  'terms_of_service_accepted',
  'status',
] as const;
export type CustomerField = (typeof CUSTOMER_FIELDS)[number];
export const CUSTOMER_CREATE_FIELDS = CUSTOMER_FIELDS.filter((f) => f !== 'status') as Exclude<
  CustomerField,
  'status'
>[];

/**
 * Fields whose change by PATCH sends an approved customer back to `pending` (spec, kyc_status:
 * "name, date of birth, id number, address, any verification-profile field"). Read broadly: the
 * whole identity document (type, number, image), the country (part of the address), the business
 * entity being verified (type, name, registration number) and every verification-profile field.
 * Not identity: contact details (email, phone_number, dial_code), the terms consent and `status`
 * (spec: changing status alone does not affect verification).
 */
export const IDENTITY_FIELDS = [
  'customer_type',
  'business_name',
  'registration_number',
  'first_name',
  'last_name',
  'date_of_birth',
  'id_type',
  'id_number',
  'id_front_image',
  'line1',
  'city',
  'state',
  'postal_code',
  'country',
  'occupation',
  'employment_status',
  'account_purpose',
  'annual_salary',
  'expected_monthly_volume',
  'place_of_birth',
] as const satisfies readonly CustomerField[];

/**
 * What POST /customers/{id}/kyc needs on the stored record, else 422 `customer: [kyc_incomplete]`:
 * what create requires (minus the defaulted customer_type and optional place_of_birth), with
 * terms_of_service_accepted true. The conditional ones (business fields, the document image) are
 * added by missingVerificationFields.
 */
export const VERIFICATION_REQUIRED_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone_number',
  'dial_code',
  'date_of_birth',
  'id_type',
  'id_number',
  'line1',
  'city',
  'state',
  'postal_code',
  'country',
  'occupation',
  'employment_status',
  'account_purpose',
  'annual_salary',
  'expected_monthly_volume',
  'terms_of_service_accepted',
] as const satisfies readonly CustomerField[];

type StringField = Exclude<CustomerField, 'terms_of_service_accepted'>;
export type CustomerCreateBody = { [K in Exclude<StringField, 'status'>]?: string } & {
  customer_type: (typeof CUSTOMER_TYPES)[number];
  first_name: string;
  last_name: string;
  email: string;
  phone_number: string;
  dial_code: string;
  date_of_birth: string;
  id_type: IdType;
  id_number: string;
  line1: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  occupation: string;
  employment_status: string;
  account_purpose: string;
  annual_salary: string;
  expected_monthly_volume: string;
  terms_of_service_accepted: true;
};
export type CustomerUpdateBody = Partial<Omit<CustomerCreateBody, 'status'>> & {
  status?: (typeof CUSTOMER_STATUSES)[number];
};
export type CustomerErrors = Record<string, string[]>;
export type CustomerParseResult<T> = { ok: true; value: T } | { ok: false; errors: CustomerErrors };

// Bare rules; the field's name is put in front ("The email " + rule), as validationErrors does.
const maxLen = (n: number) => z.string().max(n, `must not be longer than ${n} characters.`);
const DIGITS_15 = 'must contain only digits, 1 to 15 of them (whole units, not minor units).';
// Plain base64 (optionally as a data URL), checked with a linear regex: the string may be 4.2 MB.
const BASE64 = /^(?:data:image\/[a-z0-9.+-]+;base64,)?[A-Za-z0-9+/]+={0,2}$/;

const STRING_RULES: Record<Exclude<StringField, 'date_of_birth'>, z.ZodType<string>> = {
  customer_type: z
    .string()
    .refine((v) => (CUSTOMER_TYPES as readonly string[]).includes(v), 'must be individual or business.'),
  business_name: maxLen(150),
  registration_number: maxLen(64),
  first_name: maxLen(100),
  last_name: maxLen(100),
  // The e-mail regex is only run on bounded input: it is quadratic on long strings.
  email: z
    .string()
    .max(254, 'must not be longer than 254 characters.')
    .refine((v) => v.length > 254 || z.regexes.email.test(v), 'must be a valid e-mail address.'),
  phone_number: z.string().regex(/^\d{4,15}$/, 'must contain only digits, 4 to 15 of them, without the country code.'),
  dial_code: z.string().regex(/^\+\d{1,4}$/, 'must be a plus sign followed by 1 to 4 digits (for example +234).'),
  id_type: z
    .string()
    .refine((v) => (ID_TYPES as readonly string[]).includes(v), `must be one of ${ID_TYPES.join(', ')}.`),
  id_number: maxLen(64),
  id_front_image: z
    .string()
    .max(MAX_ID_FRONT_IMAGE_LENGTH, `must not be longer than ${MAX_ID_FRONT_IMAGE_LENGTH} characters.`)
    .refine((v) => v.length > MAX_ID_FRONT_IMAGE_LENGTH || BASE64.test(v), 'must be a base64-encoded image.'),
  line1: maxLen(120),
  city: maxLen(120),
  state: maxLen(120),
  postal_code: maxLen(20),
  country: z.string().regex(/^[A-Za-z]{3}$/, 'must be exactly 3 letters (an ISO 3166-1 alpha-3 code such as NGA).'),
  occupation: maxLen(100).regex(
    /^[a-z][a-z_]*$/,
    'must be lowercase letters and underscores, starting with a letter (for example software_engineer).',
  ),
  employment_status: maxLen(50),
  account_purpose: maxLen(100),
  annual_salary: z.string().regex(/^\d{1,15}$/, DIGITS_15),
  expected_monthly_volume: z.string().regex(/^\d{1,15}$/, DIGITS_15),
  place_of_birth: maxLen(120),
  status: z.string().refine((v) => (CUSTOMER_STATUSES as readonly string[]).includes(v), 'must be active or disabled.'),
};

const words = (field: string) => field.replace(/_/g, ' ');
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isDatabaseIdType = (v: unknown) => v === 'bvn' || v === 'nin';
const isDocumentIdType = (v: unknown) => (DOCUMENT_ID_TYPES as readonly unknown[]).includes(v);
const present = (v: unknown) => typeof v === 'string' && v.trim() !== '';

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Date of birth rules. `today` is read as a UTC calendar date. Age in whole years: someone born on
 * 29 February turns 18 on 1 March in a non-leap year (their month-day has not come on 28 February).
 */
function dateOfBirthProblems(value: string, today: Date): string[] {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const [y, mo, d] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  if (!m || y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) {
    return ['must be a real date in the form YYYY-MM-DD.'];
  }
  if (Number.isNaN(today.getTime())) return [];
  const [ty, tm, td] = [today.getUTCFullYear(), today.getUTCMonth() + 1, today.getUTCDate()];
  const dob = y * 10_000 + mo * 100 + d;
  const now = ty * 10_000 + tm * 100 + td;
  if (dob > now) return ['must not be in the future.'];
  const age = ty - y - (tm * 100 + td < mo * 100 + d ? 1 : 0);
  return age >= 18 ? [] : ['The cardholder must be at least 18 years old.'];
}

type Mode = 'create' | 'update';

function required(field: StringField | 'terms_of_service_accepted', mode: Mode): boolean {
  if (mode === 'update') return false;
  return ![
    'customer_type',
    'place_of_birth',
    'business_name',
    'registration_number',
    'id_front_image',
    'status',
  ].includes(field);
}

/** Per-field rules for one sent value; bare rules are returned unprefixed. */
function fieldProblems(field: CustomerField, value: unknown, today: Date): string[] {
  if (field === 'terms_of_service_accepted')
    return value === true ? [] : ['The terms of service accepted must be true.'];
  if (typeof value !== 'string') return ['must be a string.'];
  if (value.trim() === '') return ['must not be empty.'];
  if (field === 'date_of_birth') return dateOfBirthProblems(value, today);
  const result = STRING_RULES[field].safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => i.message);
}

function validate(
  body: unknown,
  today: Date,
  mode: Mode,
  current?: object,
): CustomerParseResult<Record<string, unknown>> {
  if (!isRecord(body)) return { ok: false, errors: { body: ['The request body must be a JSON object.'] } };
  const fields: readonly CustomerField[] = mode === 'create' ? CUSTOMER_CREATE_FIELDS : CUSTOMER_FIELDS;
  const errors: CustomerErrors = {};
  const add = (field: string, message: string) => {
    (errors[field] ??= []).push(/^[a-z]/.test(message) ? `The ${words(field)} ${message}` : message);
  };
  const sent = (field: CustomerField) => Object.hasOwn(body, field) && body[field] !== undefined;
  const valid: Record<string, unknown> = {};

  for (const field of fields) {
    if (!sent(field)) {
      if (required(field, mode))
        add(field, field === 'terms_of_service_accepted' ? 'is required and must be true.' : 'is required.');
      continue;
    }
    const problems = fieldProblems(field, body[field], today);
    for (const p of problems) add(field, p);
    if (!problems.length) valid[field] = field === 'country' ? (body[field] as string).toUpperCase() : body[field];
  }

  // Conditional rules. On update they are checked against current + update, and only the rules
  // whose fields the update touches: a PATCH of the email must not be refused because the
  // document image was deleted after verification. Without `current`, a rule needing a field the
  // update does not carry is left to the server. A field that failed its own rule is unknown.
  const base = mode === 'update' && isRecord(current) ? current : undefined;
  const known = (field: CustomerField): { known: boolean; value?: unknown } => {
    if (sent(field)) return field in valid ? { known: true, value: valid[field] } : { known: false };
    if (mode === 'create' || base) {
      const v = base?.[field];
      if (field === 'customer_type') return { known: true, value: typeof v === 'string' ? v : 'individual' };
      return { known: true, value: typeof v === 'string' ? v : undefined };
    }
    return { known: false };
  };
  const touched = (...fs: CustomerField[]) => mode === 'create' || fs.some(sent);
  const idType = known('id_type');
  const idKnown = idType.known && idType.value !== undefined;

  if (sent('id_front_image') && idKnown && isDatabaseIdType(idType.value)) {
    // Format problems of an image that must not be there at all are noise; say only that.
    errors.id_front_image = [];
    delete valid.id_front_image;
    add('id_front_image', 'The id front image must not be sent with bvn or nin.');
  }
  if (touched('id_type') && idKnown && isDocumentIdType(idType.value)) {
    const image = known('id_front_image');
    if (image.known && !present(image.value) && !errors.id_front_image?.length) {
      add('id_front_image', 'The id front image is required for document id types.');
    }
  }
  if (touched('id_type', 'country') && idKnown && isDatabaseIdType(idType.value)) {
    const country = known('country');
    if (country.known && typeof country.value === 'string' && country.value.toUpperCase() !== 'NGA') {
      add('country', 'The country must be NGA when id type is bvn or nin.');
    }
  }
  const type = known('customer_type');
  if (touched('customer_type', 'business_name', 'registration_number') && type.known && type.value === 'business') {
    for (const field of ['business_name', 'registration_number'] as const) {
      const v = known(field);
      if (v.known && !present(v.value) && !errors[field]?.length)
        add(field, `The ${words(field)} is required for business customers.`);
    }
  }

  if (Object.keys(errors).length) return { ok: false, errors: ordered(errors) };
  if (mode === 'create' && valid.customer_type === undefined) valid.customer_type = 'individual';
  const value: Record<string, unknown> = {};
  for (const field of fields) if (field in valid) value[field] = valid[field];
  return { ok: true, value };
}

/** Errors keyed in CUSTOMER_FIELDS order (body first) so output is deterministic. */
function ordered(errors: CustomerErrors): CustomerErrors {
  const out: CustomerErrors = {};
  for (const key of ['body', ...CUSTOMER_FIELDS]) if (errors[key]?.length) out[key] = errors[key];
  return out;
}

function guarded<T>(run: () => CustomerParseResult<Record<string, unknown>>): CustomerParseResult<T> {
  try {
    return run() as CustomerParseResult<T>;
  } catch {
    // Only reachable with exotic objects (a throwing getter or proxy), never with parsed JSON.
    return { ok: false, errors: { body: ['The request body could not be read.'] } };
  }
}

/**
 * POST /customers body. On success unknown keys are dropped, `customer_type` defaults to
 * individual and `country` is uppercased; keys come in CUSTOMER_FIELDS order.
 */
export function parseCustomerCreate(body: unknown, today: Date): CustomerParseResult<CustomerCreateBody> {
  return guarded(() => validate(body, today, 'create'));
}

/**
 * PATCH /customers/{id} body: any subset of the fields, plus `status`. `current` is the stored
 * record (the mock's, which knows whether an id image is held); conditional rules then see the
 * merged record. Without it (the CLI) only what the body itself shows is checked.
 */
export function parseCustomerUpdate(
  body: unknown,
  today: Date,
  current?: object,
): CustomerParseResult<CustomerUpdateBody> {
  return guarded(() => validate(body, today, 'update', current));
}

/**
 * The fields POST /customers/{id}/kyc finds missing on a stored record (empty: complete), in
 * CUSTOMER_FIELDS order: VERIFICATION_REQUIRED_FIELDS, plus business_name and
 * registration_number for a business, plus id_front_image for a document id type.
 */
export function missingVerificationFields(record: object): CustomerField[] {
  const r = (isRecord(record) ? record : {}) as Record<string, unknown>;
  const need = new Set<CustomerField>(VERIFICATION_REQUIRED_FIELDS);
  if (r.customer_type === 'business') {
    need.add('business_name');
    need.add('registration_number');
  }
  if (isDocumentIdType(r.id_type)) need.add('id_front_image');
  return CUSTOMER_FIELDS.filter(
    (f) => need.has(f) && (f === 'terms_of_service_accepted' ? r[f] !== true : !present(r[f])),
  );
}

/** Identity fields an update actually changes (country compared case-insensitively). */
export function changedIdentityFields(current: object, update: object): CustomerField[] {
  const c = current as Record<string, unknown>;
  const u = update as Record<string, unknown>;
  const norm = (f: string, v: unknown) => (f === 'country' && typeof v === 'string' ? v.toUpperCase() : v);
  return IDENTITY_FIELDS.filter((f) => Object.hasOwn(u, f) && u[f] !== undefined && norm(f, u[f]) !== norm(f, c[f]));
}
