//! Signing this client's JWT assertions (RFC 7523 client authentication) with ring, the crypto
//! library rustls already brings into the `mcp-http-client` build: no second crypto stack (rmcp's
//! own `private_key_jwt` signs through `jsonwebtoken` on aws-lc, which this feature keeps out).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::prelude::{BASE64_STANDARD, BASE64_URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, ECDSA_P384_SHA384_FIXED_SIGNING, EcdsaKeyPair,
    RSA_PKCS1_SHA256, RsaKeyPair,
};
use serde_json::{Value, json};

/// How long an assertion is good for: one token request, with room for clock skew.
const ASSERTION_LIFETIME_SECS: u64 = 300;

/// A PKCS#8 private key and the JWS algorithm it signs with.
pub(crate) enum SigningKey {
    Es256(EcdsaKeyPair),
    Es384(EcdsaKeyPair),
    Rs256(RsaKeyPair),
}

impl SigningKey {
    pub(crate) fn from_pkcs8_pem(pem: &str) -> Result<Self, String> {
        let der = pem_body(pem)?;
        let rng = SystemRandom::new();
        if let Ok(key) = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng) {
            return Ok(Self::Es256(key));
        }
        if let Ok(key) = EcdsaKeyPair::from_pkcs8(&ECDSA_P384_SHA384_FIXED_SIGNING, &der, &rng) {
            return Ok(Self::Es384(key));
        }
        RsaKeyPair::from_pkcs8(&der).map(Self::Rs256).map_err(|e| {
            format!(
                "the private key is not a PKCS#8 P-256, P-384 or RSA (2048 bits or more) key: {e}"
            )
        })
    }

    pub(crate) fn algorithm(&self) -> &'static str {
        match self {
            Self::Es256(_) => "ES256",
            Self::Es384(_) => "ES384",
            Self::Rs256(_) => "RS256",
        }
    }

    /// A compact JWS of `claims`, with the header `typ: JWT`.
    pub(crate) fn sign(&self, claims: &Value) -> Result<String, String> {
        let header = json!({"alg": self.algorithm(), "typ": "JWT"});
        let input = format!(
            "{}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(header.to_string()),
            BASE64_URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let rng = SystemRandom::new();
        let failed = |_| "signing the JWT assertion failed".to_string();
        let signature = match self {
            Self::Es256(key) | Self::Es384(key) => key
                .sign(&rng, input.as_bytes())
                .map_err(failed)?
                .as_ref()
                .to_vec(),
            Self::Rs256(key) => {
                let mut signature = vec![0; key.public().modulus_len()];
                key.sign(&RSA_PKCS1_SHA256, &rng, input.as_bytes(), &mut signature)
                    .map_err(failed)?;
                signature
            }
        };
        Ok(format!(
            "{input}.{}",
            BASE64_URL_SAFE_NO_PAD.encode(signature)
        ))
    }

    /// A client assertion (RFC 7523 section 3): `client_id` as issuer and subject, the
    /// authorization server as audience, a short life and a fresh `jti`.
    pub(crate) fn client_assertion(
        &self,
        client_id: &str,
        audience: &str,
    ) -> Result<String, String> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|_| "the system clock is before 1970".to_string())?
            .as_secs();
        let mut jti = [0u8; 16];
        SystemRandom::new()
            .fill(&mut jti)
            .map_err(|_| "no randomness for the assertion's jti".to_string())?;
        let jti: String = jti.iter().map(|byte| format!("{byte:02x}")).collect();
        self.sign(&json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now,
            "exp": now + ASSERTION_LIFETIME_SECS,
            "jti": jti,
        }))
    }
}

/// The DER bytes of a `-----BEGIN PRIVATE KEY-----` PEM block.
pub(crate) fn pem_body(pem: &str) -> Result<Vec<u8>, String> {
    let pem = pem.trim();
    let body = pem
        .strip_prefix("-----BEGIN PRIVATE KEY-----")
        .and_then(|rest| rest.strip_suffix("-----END PRIVATE KEY-----"))
        .ok_or_else(|| {
            "the private key is not PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----` .. \
             `-----END PRIVATE KEY-----`); convert it with `openssl pkcs8 -topk8 -nocrypt`"
                .to_string()
        })?;
    let base64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    BASE64_STANDARD
        .decode(base64)
        .map_err(|e| format!("the private key's PEM body is not base64: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, KeyPair, UnparsedPublicKey};

    fn p256_pem() -> (String, Vec<u8>) {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let body = BASE64_STANDARD.encode(pkcs8.as_ref());
        let lines: Vec<&str> = body
            .as_bytes()
            .chunks(64)
            .map(|chunk| std::str::from_utf8(chunk).unwrap())
            .collect();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            lines.join("\n")
        );
        (pem, key.public_key().as_ref().to_vec())
    }

    #[test]
    fn a_p256_assertion_verifies_with_the_public_key_and_names_the_client() {
        let (pem, public) = p256_pem();
        let key = SigningKey::from_pkcs8_pem(&pem).unwrap();
        assert_eq!(key.algorithm(), "ES256");
        let jwt = key
            .client_assertion("bot", "https://as.example.com")
            .unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let signature = BASE64_URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        let signed = format!("{}.{}", parts[0], parts[1]);
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &public)
            .verify(signed.as_bytes(), &signature)
            .expect("the signature verifies");
        let claims: Value =
            serde_json::from_slice(&BASE64_URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "bot");
        assert_eq!(claims["sub"], "bot");
        assert_eq!(claims["aud"], "https://as.example.com");
        assert_eq!(
            claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap(),
            ASSERTION_LIFETIME_SECS
        );
        let other = key.client_assertion("bot", "x").unwrap();
        let other_claims: Value = serde_json::from_slice(
            &BASE64_URL_SAFE_NO_PAD
                .decode(other.split('.').nth(1).unwrap())
                .unwrap(),
        )
        .unwrap();
        assert_ne!(claims["jti"], other_claims["jti"], "a fresh jti each time");
    }

    #[test]
    fn a_key_that_is_not_pkcs8_pem_is_refused_with_the_reason() {
        let error = SigningKey::from_pkcs8_pem(
            "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----",
        )
        .err()
        .unwrap();
        assert!(error.contains("openssl pkcs8"), "{error}");
        let error = SigningKey::from_pkcs8_pem(
            "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----",
        )
        .err()
        .unwrap();
        assert!(error.contains("base64"), "{error}");
        let error = SigningKey::from_pkcs8_pem(
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
        )
        .err()
        .unwrap();
        assert!(error.contains("P-256"), "{error}");
    }
}
