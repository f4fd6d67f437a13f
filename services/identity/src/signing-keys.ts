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
import type { Database, Queryable } from '@mp/db';
import type { Clock, SecretBox } from '@mp/kit';
import { advisoryXactLock } from './locks.js';

interface SigningKeyRow {
  kid: string;
  public_jwk: JWK | string;
  private_jwk_sealed: string;
  created_at: string;
  retired_at: string | null;
}

/**
 * Access tokens live 7200 s; a retired key stays published that long after its retirement, plus
 * five minutes for a replica that signed with it in the instant the rotation committed.
 */
export const PUBLISH_RETIRED_FOR_SECONDS = 7200 + 300;
/** Refresh tokens live 30 days; a retired key keeps verifying them that long. */
const VERIFY_RETIRED_FOR_SECONDS = 30 * 86_400 + 300;

/**
 * The Ed25519 keys that sign tokens. Private halves are stored sealed with the master key; the
 * public halves are served as a JWK Set so the gateway verifies access tokens locally.
 *
 * Rotation (ADR 0010) never logs anyone out: the new key signs from the moment it commits (every
 * replica reads which key is active before it signs), and retired keys keep verifying for as long
 * as tokens they signed can live.
 */
export class SigningKeys {
  private readonly imported = new Map<string, CryptoKey>();
  private verifier: ReturnType<typeof createLocalJWKSet> | null = null;
  private knownKids = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
    private readonly clock: Clock,
  ) {}

  /** Makes sure one active key exists (created on the first start). Replica-safe. */
  async ensureActive(): Promise<string> {
    const kid = await this.db.transaction(async (tx) => {
      await advisoryXactLock(tx, 'signing-key');
      const active = await this.activeRow(tx);
      return active ? active.kid : this.create(tx);
    });
    await this.loadVerifier();
    return kid;
  }

  /** A new key signs from now on; the previous active keys are retired (still verifying). */
  async rotate(): Promise<{ kid: string; retired: string[] }> {
    const result = await this.db.transaction(async (tx) => {
      await advisoryXactLock(tx, 'signing-key');
      const kid = await this.create(tx);
      const { rows } = await tx.query<{ kid: string }>('UPDATE signing_keys SET retired_at = $2 WHERE retired_at IS NULL AND kid <> $1 RETURNING kid', [
        kid,
        this.clock.now().toISOString(),
      ]);
      return { kid, retired: rows.map((r) => r.kid) };
    });
    await this.loadVerifier();
    return result;
  }

  /**
   * The key to sign with: read from the table each time (one indexed row), so that a rotation
   * made by any replica applies to every replica's next token.
   */
  async signingKey(q: Queryable = this.db): Promise<{ kid: string; key: CryptoKey }> {
    const row = await this.activeRow(q);
    if (!row) throw new Error('no active signing key: SigningKeys.ensureActive() was not called');
    let key = this.imported.get(row.kid);
    if (!key) {
      const privateJwk = JSON.parse(this.box.open(row.private_jwk_sealed)) as JWK;
      key = (await importJWK(privateJwk, 'EdDSA')) as CryptoKey;
      this.imported.set(row.kid, key);
    }
    return { kid: row.kid, key };
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
   * another replica created) reloads the set; refresh requests are rate limited (429005), so a
   * stream of made-up kids costs at most that many small queries.
   */
  readonly resolve = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (!this.verifier || (header.kid && !this.knownKids.has(header.kid))) await this.loadVerifier();
    return this.verifier!(header, token);
  };

  private async activeRow(q: Queryable): Promise<SigningKeyRow | undefined> {
    const { rows } = await q.query<SigningKeyRow>(
      'SELECT kid, private_jwk_sealed FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC LIMIT 1',
    );
    return rows[0];
  }

  private async create(tx: Queryable): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    await tx.query('INSERT INTO signing_keys (kid, public_jwk, private_jwk_sealed, created_at) VALUES ($1, $2, $3, $4)', [
      kid,
      JSON.stringify(publicJwk),
      this.box.seal(JSON.stringify(privateJwk)),
      this.clock.now().toISOString(),
    ]);
    return kid;
  }

  private async loadVerifier(): Promise<void> {
    const cutoff = new Date(this.clock.now().getTime() - VERIFY_RETIRED_FOR_SECONDS * 1000).toISOString();
    const { rows } = await this.db.query<SigningKeyRow>('SELECT kid, public_jwk FROM signing_keys WHERE retired_at IS NULL OR retired_at > $1', [cutoff]);
    this.verifier = createLocalJWKSet({ keys: rows.map(publicJwkOf) });
    this.knownKids = new Set(rows.map((r) => r.kid));
  }
}

function publicJwkOf(row: Pick<SigningKeyRow, 'kid' | 'public_jwk'>): JWK {
  const jwk = typeof row.public_jwk === 'string' ? (JSON.parse(row.public_jwk) as JWK) : row.public_jwk;
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid: row.kid, alg: 'EdDSA', use: 'sig' };
}
