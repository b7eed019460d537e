//! DPoP (RFC 9449): access tokens bound to a key this client holds. Every token request carries
//! a proof signed with the key (the authorization server binds the token to the key's
//! thumbprint), and every request that presents such a token carries a fresh proof for that
//! request (`Authorization: DPoP <token>` with `DPoP: <proof>`), so a stolen token is useless
//! without the key.
//!
//! Signed with ring's ECDSA P-256 (ES256): ring is already built for rustls and for our JWT
//! assertions ([`jwt`](super::jwt)), so DPoP brings no crypto crate of its own. The proofs are a
//! handful of JSON fields, written here rather than through a JOSE crate.
//!
//! A server may insist on a nonce of its own in the proofs (RFC 9449 sections 8 and 9): its
//! `use_dpop_nonce` refusal, with a `DPoP-Nonce` header, is answered by sending the request
//! once more with a fresh proof that carries the nonce, and the nonce is remembered for that
//! server (per origin) for the requests that follow.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::prelude::BASE64_URL_SAFE_NO_PAD;
use ring::digest::{SHA256, digest};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

use super::jwt::pem_body;

/// How many DPoP-bound tokens are remembered as such (a connection uses one at a time; a
/// refresh brings the next).
const BOUND_TOKENS: usize = 8;

/// How many servers' nonces are remembered (an MCP server and its authorization server, most
/// often).
const NONCES: usize = 16;

/// The longest nonce kept: a server's nonce is a short opaque string.
const MAX_NONCE: usize = 1024;

/// The key a client proves possession of with DPoP (RFC 9449), set with
/// [`McpOAuth::with_dpop`](super::McpOAuth::with_dpop): a P-256 key signing ES256 proofs.
///
/// Generate one per client ([`generate`](Self::generate)), or read one the program keeps
/// ([`from_pkcs8_pem`](Self::from_pkcs8_pem)) so that tokens stored across runs stay usable.
/// `Debug` prints the key's JWK thumbprint (RFC 7638) only.
///
/// ```
/// use phi_agent::mcp::McpDpopKey;
///
/// let key = McpDpopKey::generate().unwrap();
/// assert_eq!(key.thumbprint().len(), 43, "base64url of a SHA-256");
/// assert!(McpDpopKey::from_pkcs8_pem("not a key").is_err());
/// ```
#[derive(Clone)]
pub struct McpDpopKey(Arc<DpopKey>);

struct DpopKey {
    pair: EcdsaKeyPair,
    /// The public key as a JWK, in the member order RFC 7638 hashes.
    jwk: Value,
    thumbprint: String,
}

impl McpDpopKey {
    /// A new random P-256 key; why not, if the system has no randomness to give.
    pub fn generate() -> Result<Self, String> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| "no randomness to generate a DPoP key".to_string())?;
        Self::from_pkcs8_der(pkcs8.as_ref())
    }

    /// Reads a PKCS#8 PEM P-256 private key (`-----BEGIN PRIVATE KEY-----`, as `openssl genpkey
    /// -algorithm EC -pkeyopt ec_paramgen_curve:P-256` writes); why not, if it is not one.
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, String> {
        Self::from_pkcs8_der(&pem_body(pem)?)
    }

    fn from_pkcs8_der(der: &[u8]) -> Result<Self, String> {
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &SystemRandom::new())
                .map_err(|e| format!("the DPoP key is not a PKCS#8 P-256 key: {e}"))?;
        // An uncompressed point: 0x04, then x and y, 32 bytes each.
        let point = pair.public_key().as_ref();
        if point.len() != 65 || point[0] != 4 {
            return Err("the DPoP key's public point is not an uncompressed P-256 point".into());
        }
        let x = BASE64_URL_SAFE_NO_PAD.encode(&point[1..33]);
        let y = BASE64_URL_SAFE_NO_PAD.encode(&point[33..]);
        // RFC 7638: the required members, in lexicographic order, without white space.
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        let thumbprint = BASE64_URL_SAFE_NO_PAD.encode(digest(&SHA256, canonical.as_bytes()));
        let jwk = json!({"crv": "P-256", "kty": "EC", "x": x, "y": y});
        Ok(Self(Arc::new(DpopKey {
            pair,
            jwk,
            thumbprint,
        })))
    }

    /// The JWK SHA-256 thumbprint of the public key (RFC 7638), base64url: what an
    /// authorization server binds the tokens to (`cnf.jkt`, and `dpop_jkt` in an
    /// authorization request).
    pub fn thumbprint(&self) -> &str {
        &self.0.thumbprint
    }

    /// A proof for a `method` request to `url` (RFC 9449 section 4): `ath` binds it to
    /// `access_token` when one is presented, `nonce` is the server's when it gave one.
    fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, String> {
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.0.jwk});
        let mut claims = json!({
            "jti": random_id()?,
            "htm": method,
            "htu": htu(url)?,
            "iat": SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_err(|_| "the system clock is before 1970".to_string())?
                .as_secs(),
        });
        if let Some(token) = access_token {
            claims["ath"] = json!(BASE64_URL_SAFE_NO_PAD.encode(digest(&SHA256, token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let input = format!(
            "{}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(header.to_string()),
            BASE64_URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .0
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| "signing the DPoP proof failed".to_string())?;
        Ok(format!(
            "{input}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(signature.as_ref())
        ))
    }
}

impl fmt::Debug for McpDpopKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpDpopKey")
            .field("thumbprint", &self.0.thumbprint)
            .finish_non_exhaustive()
    }
}

/// One server's (one OAuth configuration's) DPoP state: the key, the nonces servers gave, and
/// which access tokens the authorization server bound to the key (`token_type` DPoP). A token
/// issued as a bearer token (a server that does not do DPoP) is presented as one.
pub(super) struct Dpop {
    key: McpDpopKey,
    /// The latest nonce of each origin.
    nonces: Mutex<HashMap<String, String>>,
    /// SHA-256 digests of the tokens issued bound to the key, newest last.
    bound: Mutex<VecDeque<[u8; 32]>>,
}

impl Dpop {
    pub(super) fn new(key: McpDpopKey) -> Self {
        Self {
            key,
            nonces: Mutex::new(HashMap::new()),
            bound: Mutex::new(VecDeque::new()),
        }
    }

    /// The key's JWK thumbprint (for `dpop_jkt`).
    pub(super) fn thumbprint(&self) -> &str {
        self.key.thumbprint()
    }

    /// A proof for a `method` request to `url`, with the nonce its server gave last.
    pub(super) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, String> {
        let nonce = origin(url).and_then(|origin| {
            self.nonces
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .get(&origin)
                .cloned()
        });
        self.key.proof(method, url, access_token, nonce.as_deref())
    }

    /// Keeps the nonce the server at `url` answered with (its `DPoP-Nonce` header); whether
    /// it is one the proofs did not carry yet. A value RFC 9449 does not allow is ignored.
    pub(super) fn remember_nonce(&self, url: &str, nonce: Option<&str>) -> bool {
        let (Some(origin), Some(nonce)) = (origin(url), nonce.map(str::trim)) else {
            return false;
        };
        // NQCHAR: %x21 / %x23-5B / %x5D-7E.
        let valid = !nonce.is_empty()
            && nonce.len() <= MAX_NONCE
            && nonce
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b));
        if !valid {
            return false;
        }
        let mut nonces = self
            .nonces
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if nonces.get(&origin).is_some_and(|known| known == nonce) {
            return false;
        }
        if nonces.len() >= NONCES && !nonces.contains_key(&origin) {
            nonces.clear();
        }
        nonces.insert(origin, nonce.to_string());
        true
    }

    /// Reads a successful token response: an access token of `token_type` DPoP is bound to the
    /// key, and is presented with proofs from now on.
    pub(super) fn note_token_response(&self, body: &[u8]) {
        let Ok(response) = serde_json::from_slice::<Value>(body) else {
            return;
        };
        let dpop = response["token_type"]
            .as_str()
            .is_some_and(|kind| kind.eq_ignore_ascii_case("DPoP"));
        if let (true, Some(token)) = (dpop, response["access_token"].as_str()) {
            self.bind(token);
        }
    }

    /// Marks `token` as bound to the key.
    pub(super) fn bind(&self, token: &str) {
        let mut bound = self
            .bound
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let hash = token_hash(token);
        if !bound.contains(&hash) {
            if bound.len() >= BOUND_TOKENS {
                bound.pop_front();
            }
            bound.push_back(hash);
        }
    }

    /// Whether `token` was issued bound to the key.
    pub(super) fn is_bound(&self, token: &str) -> bool {
        self.bound
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .contains(&token_hash(token))
    }
}

impl fmt::Debug for Dpop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dpop")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

/// Whether an answer refuses a proof for want of the server's nonce: an authorization server's
/// 400 with the error `use_dpop_nonce` (RFC 9449 section 8), or a resource server's 401 whose
/// challenge names it (section 9).
pub(super) fn asks_for_nonce(status: u16, challenge: Option<&str>, body: &[u8]) -> bool {
    match status {
        400 => serde_json::from_slice::<Value>(body)
            .is_ok_and(|error| error["error"].as_str() == Some("use_dpop_nonce")),
        401 => challenge.is_some_and(|challenge| challenge.contains("use_dpop_nonce")),
        _ => false,
    }
}

/// Whether a form body is a token request (it names a `grant_type`).
pub(super) fn is_token_request(body: &[u8]) -> bool {
    url::form_urlencoded::parse(body).any(|(name, _)| name == "grant_type")
}

fn token_hash(token: &str) -> [u8; 32] {
    let mut hash = [0; 32];
    hash.copy_from_slice(digest(&SHA256, token.as_bytes()).as_ref());
    hash
}

/// The `htu` of a request to `url`: the URL without its query and fragment (RFC 9449 section
/// 4.2).
fn htu(url: &str) -> Result<String, String> {
    let mut url =
        url::Url::parse(url).map_err(|e| format!("`{url}` is not a URL for a DPoP proof: {e}"))?;
    url.set_query(None);
    url.set_fragment(None);
    Ok(url.to_string())
}

fn origin(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()
        .map(|url| url.origin().ascii_serialization())
}

/// 16 random bytes in hex: a proof's `jti`.
fn random_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| "no randomness for the DPoP proof's jti".to_string())?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&BASE64_URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_verifies_with_its_jwk_and_names_the_request_without_its_query() {
        let dpop = Dpop::new(McpDpopKey::generate().unwrap());
        let proof = dpop
            .proof("POST", "https://mcp.example.com/mcp?x=1#top", Some("tok"))
            .unwrap();
        let parts: Vec<&str> = proof.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header = decode(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        let mut point = vec![4u8];
        for member in ["x", "y"] {
            point.extend(
                BASE64_URL_SAFE_NO_PAD
                    .decode(header["jwk"][member].as_str().unwrap())
                    .unwrap(),
            );
        }
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
            .verify(
                format!("{}.{}", parts[0], parts[1]).as_bytes(),
                &BASE64_URL_SAFE_NO_PAD.decode(parts[2]).unwrap(),
            )
            .expect("the signature verifies with the header's key");
        let claims = decode(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example.com/mcp");
        assert_eq!(
            claims["ath"],
            BASE64_URL_SAFE_NO_PAD.encode(digest(&SHA256, b"tok"))
        );
        assert!(claims.get("nonce").is_none());
        let again = dpop
            .proof("POST", "https://mcp.example.com/mcp", None)
            .unwrap();
        let claims_again = decode(again.split('.').nth(1).unwrap());
        assert_ne!(claims["jti"], claims_again["jti"], "a fresh jti each time");
        assert!(claims_again.get("ath").is_none());
    }

    #[test]
    fn the_thumbprint_is_rfc_7638s() {
        // RFC 7638 hashes the canonical JWK; recompute it from the published members.
        let key = McpDpopKey::generate().unwrap();
        let jwk = &key.0.jwk;
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().unwrap(),
            jwk["y"].as_str().unwrap()
        );
        assert_eq!(
            key.thumbprint(),
            BASE64_URL_SAFE_NO_PAD.encode(digest(&SHA256, canonical.as_bytes()))
        );
        assert!(format!("{key:?}").contains(key.thumbprint()));
    }

    #[test]
    fn nonces_are_kept_per_origin_and_bad_ones_ignored() {
        let dpop = Dpop::new(McpDpopKey::generate().unwrap());
        assert!(dpop.remember_nonce("https://as.example.com/token", Some("n-1")));
        assert!(!dpop.remember_nonce("https://as.example.com/other", Some("n-1")));
        assert!(!dpop.remember_nonce("https://as.example.com/token", Some("bad\"nonce")));
        assert!(!dpop.remember_nonce("https://as.example.com/token", Some("")));
        let nonce = |url: &str| {
            let proof = dpop.proof("POST", url, None).unwrap();
            decode(proof.split('.').nth(1).unwrap())["nonce"].clone()
        };
        assert_eq!(nonce("https://as.example.com/token"), "n-1");
        assert_eq!(nonce("https://mcp.example.com/mcp"), Value::Null);
    }

    #[test]
    fn only_tokens_issued_as_dpop_are_bound() {
        let dpop = Dpop::new(McpDpopKey::generate().unwrap());
        dpop.note_token_response(br#"{"access_token":"a","token_type":"Bearer"}"#);
        dpop.note_token_response(br#"{"access_token":"b","token_type":"dpop"}"#);
        dpop.note_token_response(b"not json");
        assert!(!dpop.is_bound("a"));
        assert!(dpop.is_bound("b"));
        for i in 0..BOUND_TOKENS {
            dpop.bind(&format!("t{i}"));
        }
        assert!(!dpop.is_bound("b"), "the oldest is forgotten");
    }

    #[test]
    fn nonce_refusals_are_recognised() {
        assert!(asks_for_nonce(400, None, br#"{"error":"use_dpop_nonce"}"#));
        assert!(!asks_for_nonce(400, None, br#"{"error":"invalid_grant"}"#));
        assert!(asks_for_nonce(
            401,
            Some(r#"DPoP error="use_dpop_nonce""#),
            b""
        ));
        assert!(!asks_for_nonce(401, Some("DPoP"), b""));
        assert!(is_token_request(b"grant_type=authorization_code&code=x"));
        assert!(!is_token_request(br#"{"client_name":"x"}"#));
    }
}
