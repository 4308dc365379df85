//! HS256, the one JWT algorithm the sandbox signs and accepts, as
//! jsonwebtoken's crypto provider, on the hmac and sha2 crates the sandbox
//! uses already.
//!
//! jsonwebtoken's own backends cost a clean build for nothing here:
//! `aws_lc_rs` is built from C (a sandbox built with `rustls-graviola`
//! would still build aws-lc), `rust_crypto` brings RSA and elliptic-curve
//! crates the sandbox never calls. jsonwebtoken takes exactly one provider
//! per process, so it cannot follow the TLS feature either.

use hmac::{Hmac, Mac};
use jsonwebtoken::crypto::{CryptoProvider, JwtSigner, JwtVerifier, KeyUtils};
use jsonwebtoken::errors::{Error, ErrorKind};
use jsonwebtoken::signature::{self, Signer, Verifier};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, EncodingKey};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

static PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: signer,
    verifier_factory: verifier,
    // JWKs are never read: the sandbox's keys are its own shared secret.
    key_utils: KeyUtils::new_unimplemented(),
};

/// Makes HS256 on hmac/sha2 the process's jsonwebtoken provider, unless one
/// is installed already (an embedding application's choice is kept, and
/// a second sandbox in the same process finds this one).
pub(crate) fn install() {
    let _ = PROVIDER.install_default();
}

fn mac(algorithm: &Algorithm, family: AlgorithmFamily, secret: &[u8]) -> Result<HmacSha256, Error> {
    if *algorithm != Algorithm::HS256 {
        return Err(ErrorKind::InvalidAlgorithm.into());
    }
    if family != AlgorithmFamily::Hmac {
        return Err(ErrorKind::InvalidKeyFormat.into());
    }
    HmacSha256::new_from_slice(secret).map_err(|_| ErrorKind::InvalidKeyFormat.into())
}

fn signer(algorithm: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>, Error> {
    Ok(Box::new(Hs256(mac(
        algorithm,
        key.family(),
        key.as_bytes(),
    )?)))
}

fn verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>, Error> {
    Ok(Box::new(Hs256(mac(
        algorithm,
        key.family(),
        key.try_get_as_bytes()?,
    )?)))
}

/// An HMAC-SHA256 keyed with the sandbox's secret.
struct Hs256(HmacSha256);

impl Signer<Vec<u8>> for Hs256 {
    fn try_sign(&self, message: &[u8]) -> Result<Vec<u8>, signature::Error> {
        let mut mac = self.0.clone();
        mac.update(message);
        Ok(mac.finalize().into_bytes().to_vec())
    }
}

impl Verifier<Vec<u8>> for Hs256 {
    fn verify(&self, message: &[u8], signature: &Vec<u8>) -> Result<(), signature::Error> {
        let mut mac = self.0.clone();
        mac.update(message);
        // verify_slice compares in constant time
        mac.verify_slice(signature)
            .map_err(signature::Error::from_source)
    }
}

impl JwtSigner for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

impl JwtVerifier for Hs256 {
    fn algorithm(&self) -> Algorithm {
        Algorithm::HS256
    }
}

#[cfg(test)]
mod tests {
    use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Claims {
        sub: String,
        exp: u64,
    }

    #[test]
    fn signs_and_verifies_hs256_and_refuses_another_key_and_algorithm() {
        super::install();
        let claims = Claims {
            sub: "merchant".into(),
            exp: 4_102_444_800,
        };
        let token = encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(b"one"),
        )
        .unwrap();
        let validation = Validation::new(Algorithm::HS256);
        let read =
            decode::<Claims>(&token, &DecodingKey::from_secret(b"one"), &validation).unwrap();
        assert_eq!(read.claims.sub, "merchant");
        assert!(decode::<Claims>(&token, &DecodingKey::from_secret(b"two"), &validation).is_err());
        assert!(encode(
            &Header::new(Algorithm::HS384),
            &claims,
            &EncodingKey::from_secret(b"one")
        )
        .is_err());
    }
}
