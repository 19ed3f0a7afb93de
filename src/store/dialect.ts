/** The two databases Confab speaks; SQL that differs between them branches on this. */
export type DialectName = 'sqlite' | 'postgres';
