import { SPLIT_NAME } from './columns.js';

// Every field a column can feed, in a finance person's words: the label a pick list shows, and one line on what the
// service does with it. The field's own name stays the value a mapping saves (the same name `--map` takes).

const LABELS: Readonly<Record<string, readonly [string, string]>> = {
  clientUserId: [
    "Payer's ID",
    'Your own id for the payer (vendor or customer number): how the tool and the service know them',
  ],
  email: ['E-mail', 'Where the payer gets their links to verify themselves and sign the agreement'],
  firstName: ['First name', "The person's given name, as on their ID"],
  lastName: ['Last name', "The person's family name, as on their ID"],
  beneficiaryType: ['Individual or business', 'individual or business'],
  dateOfBirth: ['Date of birth', 'Checked against their ID'],
  addressLine1: ['Street address', 'The first line of the address: number and street'],
  addressLine2: ['Address line 2', 'Apartment, suite, building (optional)'],
  city: ['City', 'The town or city of the address'],
  state: ['State or province', 'Two letters for the US (CA, NY)'],
  postcode: ['ZIP or postal code', 'As the country writes it'],
  country: ['Country', 'Two letters: US, GB, FR'],
  nationality: ['Nationality', 'Two letters: US, GB, FR'],
  phone: ['Phone', 'With the country code: +1 217 555 0100'],
  ssn: ['SSN', 'US Social Security number, for identity checks'],
  companyName: ["Company's name", 'For a business payer: its registered name'],
  sourceOfFunds: ['Source of funds', 'Where their money comes from (optional)'],
  businessActivity: ['Business activity', 'What the business does (optional)'],
  bankName: ['Bank', 'The name of the bank'],
  accountName: ['Name on the account', 'The account holder, as the bank has it'],
  currency: ['Currency', 'Three letters: USD, EUR, GBP'],
  accountNumber: ['Account number', 'The bank account number'],
  routingNumber: ['Routing number', 'US: the 9-digit ABA number'],
  rails: ['Payment rails', 'local, wire, ...: how payments reach the account (optional)'],
  sortCode: ['Sort code', 'UK: 6 digits'],
  iban: ['IBAN', 'International bank account number (Europe and beyond)'],
  swiftBic: ['SWIFT/BIC', "The bank's international code"],
  documentNumber: ['ID document number', 'Where the country asks for one'],
  documentType: ['ID document type', 'Passport, national ID, ...'],
  accountType: ['Account type', 'checking or savings'],
  ribNumber: ['RIB key', 'France: the 2-digit key of the RIB'],
  bsbNumber: ['BSB', 'Australia: 6 digits'],
  ncc: ['National clearing code', 'Where the country uses one'],
  branchCode: ['Branch code', "The bank branch's code"],
  bankCode: ['Bank code', 'BLZ, code banque, ...: the national bank code'],
  ifsc: ['IFSC', 'India: the 11-character branch code'],
  postalCode: ['ZIP or postal code', "The account holder's, as the country writes it"],
  agreementCompleted: [
    'Agreement signed elsewhere',
    'yes or a date only where you collected their signature yourselves',
  ],
  [SPLIT_NAME]: [
    'First and last name, split',
    "A person's whole name: the last word is the last name, or what comes before a comma",
  ],
};

/** The label a pick list shows for a field, and its one line of explanation (a `bank*` column's are the bank's own). */
export function fieldLabel(field: string): { label: string; help: string } {
  const own = LABELS[field];
  if (own !== undefined) return { label: own[0], help: own[1] };
  const shared = /^bank([A-Z]\w*)$/.exec(field);
  const of = shared && LABELS[shared[1]!.charAt(0).toLowerCase() + shared[1]!.slice(1)];
  if (of)
    return { label: `${of[0]} (bank account's)`, help: `The account holder's, where it differs from the payer's` };
  return { label: field, help: '' };
}
