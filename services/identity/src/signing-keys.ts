import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWK,
  type JWSHeaderParameters,
} from 'jose';
import type { Database } from '@mp/db';
import type { Clock, SecretBox } from '@mp/kit';
import { advisoryXactLock } from './locks.js';

interface SigningKeyRow {
  kid: string;
  public_jwk: JWK;
  private_jwk_sealed: string;
  created_at: string;
  retired_at: string | null;
}

/** Access tokens live 7200 s; a retired key stays published that long so its tokens still verify. */
const PUBLISH_RETIRED_FOR_SECONDS = 7200;
/** Refresh tokens live 30 days; a retired key keeps verifying them that long. */
const VERIFY_RETIRED_FOR_SECONDS = 30 * 86_400;

/**
 * The Ed25519 keys that sign tokens. Private halves are stored sealed with the master key; the
 * public halves are served as a JWK Set so the gateway verifies access tokens locally.
 */
export class SigningKeys {
  private active: { kid: string; key: CryptoKey } | null = null;
  private verifier: ReturnType<typeof createLocalJWKSet> | null = null;
  private knownKids = new Set<string>();
  private lastLoad = 0;

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** Makes sure one active key exists (created on the first start) and loads it. Replica-safe. */
  async ensureActive(): Promise<string> {
    const row = await this.db.transaction(async (tx) => {
      await advisoryXactLock(tx, 'signing-key');
      const { rows } = await tx.query<SigningKeyRow>('SELECT * FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC LIMIT 1');
      if (rows[0]) return rows[0];
      const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
      const publicJwk = await exportJWK(publicKey);
      const privateJwk = await exportJWK(privateKey);
      const kid = await calculateJwkThumbprint(publicJwk);
      const inserted = await tx.query<SigningKeyRow>(
        'INSERT INTO signing_keys (kid, public_jwk, private_jwk_sealed, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
        [kid, JSON.stringify(publicJwk), this.box.seal(JSON.stringify(privateJwk)), this.clock.now().toISOString()],
      );
      return inserted.rows[0]!;
    });
    const privateJwk = JSON.parse(this.box.open(row.private_jwk_sealed)) as JWK;
    this.active = { kid: row.kid, key: (await importJWK(privateJwk, 'EdDSA')) as CryptoKey };
    await this.loadVerifier();
    return row.kid;
  }

  signingKey(): { kid: string; key: CryptoKey } {
    if (!this.active) throw new Error('SigningKeys.ensureActive() was not called');
    return this.active;
  }

  /** The public keys as served by GetJwks: the active key and recently retired ones. */
  async jwks(): Promise<JSONWebKeySet> {
    const cutoff = new Date(this.clock.now().getTime() - PUBLISH_RETIRED_FOR_SECONDS * 1000).toISOString();
    const { rows } = await this.db.query<SigningKeyRow>(
      'SELECT kid, public_jwk FROM signing_keys WHERE retired_at IS NULL OR retired_at > $1 ORDER BY created_at DESC, kid DESC',
      [cutoff],
    );
    return { keys: rows.map(publicJwkOf) };
  }

  /**
   * A key resolver for jose's jwtVerify (refresh tokens). A kid this replica has not seen (a key
   * another replica created) reloads the set, at most once every 10 s.
   */
  readonly resolve = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (!this.verifier || (header.kid && !this.knownKids.has(header.kid) && Date.now() - this.lastLoad > 10_000)) await this.loadVerifier();
    return this.verifier!(header, token);
  };

  private async loadVerifier(): Promise<void> {
    const cutoff = new Date(this.clock.now().getTime() - VERIFY_RETIRED_FOR_SECONDS * 1000).toISOString();
    const { rows } = await this.db.query<SigningKeyRow>('SELECT kid, public_jwk FROM signing_keys WHERE retired_at IS NULL OR retired_at > $1', [cutoff]);
    this.verifier = createLocalJWKSet({ keys: rows.map(publicJwkOf) });
    this.knownKids = new Set(rows.map((r) => r.kid));
    this.lastLoad = Date.now();
  }
}

function publicJwkOf(row: Pick<SigningKeyRow, 'kid' | 'public_jwk'>): JWK {
  const jwk = typeof row.public_jwk === 'string' ? (JSON.parse(row.public_jwk) as JWK) : row.public_jwk;
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid: row.kid, alg: 'EdDSA', use: 'sig' };
}
