// Column names as finance teams write them, by the field they mean: their own words, the common European spellings,
// and the column names of the vendor and contact exports they start from (Xero, QuickBooks Online, NetSuite, SAP
// Business One). A header is first matched against the field names themselves (`First Name`, `date_of_birth` need no
// entry here); these are the other names.

/**
 * A name as it is matched: without case, accents or punctuation. `Kunden-ID`, `kunden id` and `KUNDENID` are one name;
 * `N° client` is `nclient`, `Straße` is `strasse`, `Prénom` is `prenom`.
 */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Field -> the names that mean it and nothing else. */
const NAMES: Readonly<Record<string, readonly string[]>> = {
  clientUserId: [
    ...['Client ID', 'Customer ID', 'Payer ID', 'User ID', 'External ID', 'Payee ID', 'Contact ID'],
    ...['Vendor ID', 'Vendor No.', 'Vendor Number', 'Vendor #', 'Vendor Code', 'Supplier ID', 'Supplier No.'],
    ...['Supplier Number', 'Supplier Code', 'Customer No.', 'Customer Number', 'Client No.', 'Client Number'],
    // NetSuite, SAP Business One.
    ...['Entity ID', 'BP Code', 'CardCode'],
    ...['Kunden-ID', 'Kundennummer', 'Kunden-Nr.', 'Lieferanten-ID', 'Lieferantennummer', 'Lieferanten-Nr.'],
    ...['Kreditorennummer', 'Kreditor-Nr.', 'N° client', 'Numéro client', 'Numéro de client', 'Code client'],
    ...['ID client', 'Identifiant client', 'N° fournisseur', 'Numéro de fournisseur', 'Code fournisseur'],
    ...['ID de cliente', 'Número de cliente', 'Código de cliente', 'ID de proveedor', 'Número de proveedor'],
    ...['Código de proveedor', 'Codice cliente', 'Codice fornitore', 'Klantnummer', 'Leveranciersnummer'],
  ],
  email: [
    ...['Email Address', 'E-mail Address', 'Mail', 'Mail Address', 'E-Mail-Adresse', 'Courriel', 'Adresse e-mail'],
    ...['Adresse électronique', 'Correo', 'Correo electrónico', 'Indirizzo email', 'E-mailadres'],
  ],
  firstName: [...['Given Name', 'Given Names', 'First', 'Forename', 'Vorname', 'Prénom', 'Nombre', 'Nome', 'Voornaam']],
  lastName: [
    ...['Surname', 'Family Name', 'Last', 'Nachname', 'Familienname', 'Nom de famille', 'Apellido', 'Apellidos'],
    ...['Cognome', 'Achternaam'],
  ],
  dateOfBirth: [
    ...['DOB', 'Birth Date', 'Birthdate', 'Birthday', 'Geburtsdatum', 'Date de naissance'],
    ...['Fecha de nacimiento', 'Data di nascita', 'Geboortedatum'],
  ],
  addressLine1: [
    ...['Street', 'Address', 'Street Address', 'Address 1', 'Street 1', 'Address Line', 'POAddressLine1'],
    ...['Straße', 'Strasse', 'Straße und Hausnummer', 'Anschrift', 'Adresse', 'Dirección', 'Indirizzo', 'Adres'],
  ],
  addressLine2: [
    ...['Address 2', 'Street 2', 'Apartment', 'Apt/Suite', 'POAddressLine2', 'Adresszusatz', "Complément d'adresse"],
  ],
  city: [
    ...['Town', 'Town/City', 'City/Town', 'POCity', 'Ort', 'Stadt', 'Wohnort', 'Ville', 'Ciudad', 'Localidad'],
    ...['Città', 'Plaats', 'Woonplaats'],
  ],
  state: [...['Province', 'State/Province', 'Region', 'PORegion', 'Bundesland', 'Région', 'Provincia', 'Provincie']],
  // Not `Post Code`: it reads as `postcode` itself, a payer-only name that a bank-details file deliberately does not know.
  postcode: [
    ...['Zip', 'Zip Code', 'ZIP/Postal Code', 'Postal Code', 'Postcode/ZIP', 'POPostalCode', 'PLZ', 'Postleitzahl'],
    ...['Code postal', 'CP', 'Código postal', 'CAP', 'Postal'],
  ],
  country: ['Country Code', 'POCountry', 'Land', 'Pays', 'País', 'Paese', 'Nazione'],
  nationality: ['Citizenship', 'Staatsangehörigkeit', 'Nationalität', 'Nationalité', 'Nacionalidad', 'Nazionalità'],
  phone: [
    ...['Phone Number', 'Telephone', 'Telephone Number', 'Tel', 'Tel.', 'Telefon', 'Telefonnummer', 'Téléphone'],
    ...['Teléfono', 'Telefono', 'Telefoonnummer', 'Telephone 1'],
  ],
  ssn: ['Social Security Number', 'Social Security No'],
  companyName: [
    ...['Company', 'Business Name', 'Organization', 'Organisation', 'Firma', 'Firmenname', 'Unternehmen'],
    ...['Société', 'Raison sociale', 'Entreprise', 'Empresa', 'Razón social', 'Azienda', 'Ragione sociale'],
    ...['Bedrijf', 'Bedrijfsnaam'],
  ],
  bankName: ['Bank', 'Kreditinstitut', 'Banque', 'Nom de la banque', 'Banco', 'Banca'],
  accountName: [
    ...['Account Holder', 'Account Holder Name', 'Name on Account', 'Beneficiary Name', 'BankAccountName'],
    ...['Kontoinhaber', 'Titulaire du compte', 'Titular de la cuenta', 'Intestatario', 'Rekeninghouder'],
  ],
  accountNumber: [
    ...['Account No', 'Account #', 'Acct Number', 'Acct No', 'Bank Account Number', 'Bank Account', 'Kontonummer'],
    ...['Numéro de compte', 'Número de cuenta', 'Numero di conto', 'Rekeningnummer'],
  ],
  routingNumber: ['ABA', 'ABA Number', 'ABA Routing Number', 'Routing', 'Routing No', 'Routing #', 'RTN'],
  sortCode: ['Sort'],
  iban: ['IBAN Number'],
  swiftBic: ['BIC', 'SWIFT', 'SWIFT Code', 'BIC Code', 'SWIFT/BIC', 'BIC/SWIFT'],
  currency: ['Currency Code', 'CCY', 'Währung', 'Devise', 'Moneda', 'Divisa', 'Valuta'],
  bankCode: ['BLZ', 'Bankleitzahl', 'Code banque'],
  branchCode: ['Code guichet'],
  ribNumber: ['Clé RIB'],
};

/**
 * Field -> names that mean it only where no column names it better: Xero exports `PhoneNumber` and `MobileNumber`
 * side by side, SAP Business One `Telephone 1` and `Mobile Phone`, NetSuite `Internal ID` beside `ID`. A file with only
 * `Mobile` reads it as the phone; one with `Phone` too reads `Phone`, and says that `Mobile` is not read.
 */
const SECOND_NAMES: Readonly<Record<string, readonly string[]>> = {
  clientUserId: ['Internal ID'],
  phone: [
    ...['Mobile', 'Mobile Number', 'Mobile Phone', 'Cell', 'Cell Phone', 'Cellular', 'Telephone 2', 'Handy', 'Mobil'],
    ...['Mobilnummer', 'Portable', 'Móvil', 'Cellulare', 'Mobiel'],
  ],
};

/**
 * Names that could mean two fields or more: the page asks, the CLI names the `--map` that settles it. A person's name
 * or a company's (`Vendor name`, `Nom`), a tax number (a person's SSN, or a company's number the service is not sent).
 */
const COULD_BE: ReadonlyArray<{ names: readonly string[]; fields: readonly string[] }> = [
  {
    names: [
      ...['Name', 'Full Name', 'Display Name', 'Vendor', 'Vendor Name', 'Supplier', 'Supplier Name', 'Payee'],
      ...['Payee Name', 'Contact', 'Contact Name', 'Customer', 'Customer Name', 'BP Name', 'CardName', 'Nom'],
      ...['Lieferant', 'Kunde', 'Fournisseur', 'Proveedor', 'Fornitore', 'Naam'],
    ],
    fields: ['companyName', 'lastName'],
  },
  {
    names: ['Tax ID', 'Tax Number', 'TIN', 'Federal Tax ID', 'Steuernummer', 'Steuer-ID', 'Numéro fiscal', 'NIF'],
    fields: ['ssn'],
  },
];

/**
 * Names that mean a field alone but could be another beside certain columns: Xero's `AccountNumber` is the contact's
 * own number in Xero when `BankAccountNumber` is there too (a fine id for the payer); a bare `ID` beside `Tax ID` may
 * be either.
 */
const BESIDE: ReadonlyArray<{ names: readonly string[]; beside: readonly string[]; fields: readonly string[] }> = [
  {
    names: ['AccountNumber', 'Account No', 'Account #'],
    beside: ['BankAccountNumber', 'Bank Account', 'Kontonummer', 'IBAN'],
    fields: ['clientUserId', 'accountNumber'],
  },
  {
    names: ['ID', 'Nr', 'No'],
    beside: ['Tax ID', 'Tax Number', 'TIN', 'Federal Tax ID', 'SSN'],
    fields: ['clientUserId', 'ssn'],
  },
];

/** A name for `ID` alone: a payer's id unless a column beside it could be another number of theirs. */
const PLAIN_ID = ['ID', 'Nr', 'No', 'Number', 'Identifiant', 'Kennung'];

const table = (entries: Readonly<Record<string, readonly string[]>>): ReadonlyMap<string, string> =>
  new Map(
    Object.entries(entries).flatMap(([field, names]) =>
      names.map((name): [string, string] => [normalizeName(name), field]),
    ),
  );

const FIRST = table({ ...NAMES, clientUserId: [...NAMES.clientUserId!, ...PLAIN_ID] });
const SECOND = table(SECOND_NAMES);
const ASKED = new Map(
  COULD_BE.flatMap(({ names, fields }) => names.map((name) => [normalizeName(name), fields] as const)),
);
const CONTEXT = BESIDE.map(({ names, beside, fields }) => ({
  names: new Set(names.map(normalizeName)),
  beside: new Set(beside.map(normalizeName)),
  fields,
}));

/** What a name alone says: the field it means (`rank` 2, or 3 where a better-named column wins), or the fields it could be. */
export type NameMeaning = { field: string; rank: 2 | 3 } | { could: readonly string[] };

/** The meaning of a normalised name in the synonym tables, or undefined when it has none. */
export function synonymOf(name: string): NameMeaning | undefined {
  const first = FIRST.get(name);
  if (first !== undefined) return { field: first, rank: 2 };
  const second = SECOND.get(name);
  if (second !== undefined) return { field: second, rank: 3 };
  const could = ASKED.get(name);
  return could === undefined ? undefined : { could };
}

/** The fields a normalised name could be beside the header's other names, where a column there makes it unsure. */
export function couldBeBeside(name: string, others: ReadonlySet<string>): readonly string[] | undefined {
  for (const rule of CONTEXT)
    if (rule.names.has(name) && [...rule.beside].some((other) => others.has(other))) return rule.fields;
  return undefined;
}
