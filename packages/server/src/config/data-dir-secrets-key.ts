import { readOrCreateKeyFile } from '../key-file.js';

/** The file in the data dir that holds the generated secrets key. */
export const SECRETS_KEY_FILE = 'secrets.key';

/**
 * The key sealing stored secrets when BATON_SECRETS_KEY is unset. On SQLite, Baton is one node
 * with its data dir: it makes a key there on first start (`secrets.key`, mode 0600), so saving a
 * provider's API key or a secret works out of the box, sealed rather than in clear, and the key
 * never enters the database. A copy of the whole data dir can open the secrets, so the start
 * line says where the key is and that BATON_SECRETS_KEY keeps it elsewhere. On PostgreSQL the
 * nodes must share one key, which a file on one node cannot be: there it stays unset, and
 * saving a secret is refused with the setting named.
 */
export function dataDirSecretsKey(
  dialect: 'sqlite' | 'postgres',
  dataDir: string,
  logger: { info(fields: object, message: string): void },
): Buffer | undefined {
  if (dialect !== 'sqlite') return undefined;
  const { key, file, created } = readOrCreateKeyFile(dataDir, SECRETS_KEY_FILE);
  logger.info(
    { file, created },
    created
      ? 'BATON_SECRETS_KEY is unset: made a key to seal stored secrets; back it up with the database (without it they cannot be opened), or set BATON_SECRETS_KEY to keep the key outside the data dir'
      : 'BATON_SECRETS_KEY is unset: stored secrets are sealed with the key in the data dir',
  );
  return key;
}
