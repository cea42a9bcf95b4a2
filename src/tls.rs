//! HTTPS on the LAN. With `--tls auto` the box is its own certificate authority:
//! a CA made once and kept in the data dir signs a server certificate for the
//! box's host names and addresses. A terminal installs the CA once
//! (`brigade tls export-ca`) and then trusts every server certificate the box
//! issues later, when its address changes or its certificate is renewed.

use std::fs;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use ::time::{Duration, OffsetDateTime};
use clap::ValueEnum;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How the server speaks to clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TlsMode {
    /// Plain HTTP, for development on one machine.
    Off,
    /// HTTPS with the box's own certificate authority, made on first use.
    Auto,
}

/// The certificate chain and key the server presents, as files Rocket reads.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// SHA-256 of the certificate a client pins: the CA's under `auto`, the
    /// server certificate's when the files are provided.
    pub fingerprint: String,
}

const CA_CERT: &str = "ca.pem";
const CA_KEY: &str = "ca-key.pem";
const SERVER_CERT: &str = "server.pem";
const SERVER_KEY: &str = "server-key.pem";
/// What the current server certificate was issued for, to know when to reissue it.
const SERVER_ISSUED: &str = "server.json";

/// Apple platforms refuse server certificates valid for longer than 825 days,
/// even from a private CA.
const SERVER_DAYS: i64 = 825;
/// Reissued this long before it expires, at a start of the server.
const RENEW_BEFORE_DAYS: i64 = 30;
const CA_YEARS: i64 = 20;

#[derive(Serialize, Deserialize, PartialEq)]
struct Issued {
    names: Vec<String>,
    not_after: i64,
}

/// The folder in the data dir that holds the CA and the server certificate.
pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join("tls")
}

/// Makes the CA on first use, and a server certificate for `names` (see
/// [`local_names`]) whenever the current one does not cover exactly those names
/// or is about to expire.
pub fn auto(data_dir: &Path, names: &[String]) -> Result<TlsFiles, String> {
    let folder = folder(data_dir);
    fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    let (ca_pem, ca_key) = certificate_authority(&folder)?;
    let now = OffsetDateTime::now_utc();
    let wanted = Issued {
        names: names.to_vec(),
        not_after: (now + Duration::days(SERVER_DAYS)).unix_timestamp(),
    };
    let current: Option<Issued> = fs::read(folder.join(SERVER_ISSUED))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let still_good = current.is_some_and(|issued| {
        issued.names == wanted.names
            && issued.not_after > (now + Duration::days(RENEW_BEFORE_DAYS)).unix_timestamp()
    }) && folder.join(SERVER_CERT).exists()
        && folder.join(SERVER_KEY).exists();
    if !still_good {
        let issuer = Issuer::from_ca_cert_pem(&ca_pem, ca_key)
            .map_err(|e| format!("cannot read the CA certificate: {e}"))?;
        let mut params = CertificateParams::default();
        params.distinguished_name = name("Brigade server");
        params.subject_alt_names = names
            .iter()
            .map(|n| subject_alt_name(n))
            .collect::<Result<_, _>>()?;
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.not_before = now - Duration::hours(1);
        params.not_after =
            OffsetDateTime::from_unix_timestamp(wanted.not_after).map_err(|e| e.to_string())?;
        let key = KeyPair::generate().map_err(|e| format!("cannot make a key: {e}"))?;
        let cert = params
            .signed_by(&key, &issuer)
            .map_err(|e| format!("cannot sign the server certificate: {e}"))?;
        // The chain: the server certificate, then the CA that signed it.
        write_private(&folder.join(SERVER_KEY), &key.serialize_pem())?;
        write(&folder.join(SERVER_CERT), &(cert.pem() + &ca_pem))?;
        write(
            &folder.join(SERVER_ISSUED),
            &serde_json::to_string_pretty(&wanted).map_err(|e| e.to_string())?,
        )?;
    }
    Ok(TlsFiles {
        cert: folder.join(SERVER_CERT),
        key: folder.join(SERVER_KEY),
        fingerprint: fingerprint_of_pem(&ca_pem)?,
    })
}

/// Certificate and key files the restaurant provides (from its own CA, say).
pub fn provided(cert: &Path, key: &Path) -> Result<TlsFiles, String> {
    let cert_pem = fs::read_to_string(cert)
        .map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?;
    let key_pem = fs::read_to_string(key)
        .map_err(|e| format!("cannot read the key {}: {e}", key.display()))?;
    KeyPair::from_pem(&key_pem)
        .map_err(|e| format!("{} is not a PEM private key: {e}", key.display()))?;
    Ok(TlsFiles {
        cert: cert.to_path_buf(),
        key: key.to_path_buf(),
        fingerprint: fingerprint_of_pem(&cert_pem)?,
    })
}

/// The CA certificate (PEM) that terminals install; made now if the box has none yet.
pub fn export_ca(data_dir: &Path) -> Result<String, String> {
    let folder = folder(data_dir);
    fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    Ok(certificate_authority(&folder)?.0)
}

/// The names and addresses this box answers on: localhost, its host name (also
/// under `.local` for mDNS) and every interface address.
pub fn local_names() -> Vec<String> {
    let mut names = vec!["localhost".to_string()];
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    if !host.is_empty() && host != "localhost" {
        names.push(format!("{host}.local"));
        names.push(host);
    }
    let mut addresses: Vec<IpAddr> = vec![IpAddr::from([127, 0, 0, 1]), "::1".parse().unwrap()];
    if let Ok(interfaces) = if_addrs::get_if_addrs() {
        addresses.extend(interfaces.iter().map(|i| i.ip()));
    }
    addresses.sort();
    addresses.dedup();
    names.extend(addresses.iter().map(IpAddr::to_string));
    names
}

/// `AB:CD:…`, the SHA-256 of a certificate's DER bytes, as browsers show it.
fn fingerprint(der: &[u8]) -> String {
    let digest = Sha256::digest(der);
    digest
        .iter()
        .map(|byte| format!("{byte:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The fingerprint of the first certificate in a PEM file.
pub fn fingerprint_of_pem(pem: &str) -> Result<String, String> {
    let first = ::pem::parse(pem).map_err(|e| format!("not a PEM certificate: {e}"))?;
    Ok(fingerprint(first.contents()))
}

/// The CA's certificate and key, made on first use.
fn certificate_authority(folder: &Path) -> Result<(String, KeyPair), String> {
    let (cert_path, key_path) = (folder.join(CA_CERT), folder.join(CA_KEY));
    if cert_path.exists() && key_path.exists() {
        let cert = fs::read_to_string(&cert_path).map_err(|e| e.to_string())?;
        let key = fs::read_to_string(&key_path).map_err(|e| e.to_string())?;
        let key = KeyPair::from_pem(&key).map_err(|e| format!("cannot read the CA key: {e}"))?;
        return Ok((cert, key));
    }
    let now = OffsetDateTime::now_utc();
    let mut params = CertificateParams::default();
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    params.distinguished_name = name(&format!("Brigade CA ({host})"));
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    params.not_before = now - Duration::hours(1);
    params.not_after = now + Duration::days(365 * CA_YEARS);
    let key = KeyPair::generate().map_err(|e| format!("cannot make a key: {e}"))?;
    let cert = params
        .self_signed(&key)
        .map_err(|e| format!("cannot make the CA certificate: {e}"))?;
    write_private(&key_path, &key.serialize_pem())?;
    write(&cert_path, &cert.pem())?;
    Ok((cert.pem(), key))
}

fn name(common_name: &str) -> DistinguishedName {
    let mut name = DistinguishedName::new();
    name.push(DnType::OrganizationName, "Brigade");
    name.push(DnType::CommonName, common_name);
    name
}

fn subject_alt_name(name: &str) -> Result<SanType, String> {
    match name.parse::<IpAddr>() {
        Ok(address) => Ok(SanType::IpAddress(address)),
        Err(_) => name
            .to_string()
            .try_into()
            .map(SanType::DnsName)
            .map_err(|e| format!("{name:?} cannot be a certificate name: {e}")),
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Private keys are readable by the server's own user only.
fn write_private(path: &Path, text: &str) -> Result<(), String> {
    write(path, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("cannot protect {}: {e}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn the_server_certificate_is_reissued_only_when_the_names_change_and_the_ca_stays() {
        let dir = tempfile::tempdir().unwrap();
        let first = auto(dir.path(), &names(&["localhost", "127.0.0.1"])).unwrap();
        let ca = fs::read(folder(dir.path()).join(CA_CERT)).unwrap();
        let issued = fs::read(&first.cert).unwrap();

        let again = auto(dir.path(), &names(&["localhost", "127.0.0.1"])).unwrap();
        assert_eq!(fs::read(&again.cert).unwrap(), issued, "same names: kept");

        let moved = auto(dir.path(), &names(&["localhost", "127.0.0.1", "10.1.2.3"])).unwrap();
        assert_ne!(
            fs::read(&moved.cert).unwrap(),
            issued,
            "a new address: reissued"
        );
        assert_eq!(fs::read(folder(dir.path()).join(CA_CERT)).unwrap(), ca);
        assert_eq!(
            moved.fingerprint, first.fingerprint,
            "terminals keep trusting"
        );
        let chain = fs::read_to_string(&moved.cert).unwrap();
        assert_eq!(
            chain.matches("BEGIN CERTIFICATE").count(),
            2,
            "server then CA"
        );
    }

    #[test]
    fn a_server_certificate_near_its_end_is_renewed() {
        let dir = tempfile::tempdir().unwrap();
        let first = auto(dir.path(), &names(&["localhost"])).unwrap();
        let issued = fs::read(&first.cert).unwrap();
        let soon = OffsetDateTime::now_utc() + Duration::days(RENEW_BEFORE_DAYS - 1);
        let record = Issued {
            names: names(&["localhost"]),
            not_after: soon.unix_timestamp(),
        };
        fs::write(
            folder(dir.path()).join(SERVER_ISSUED),
            serde_json::to_string(&record).unwrap(),
        )
        .unwrap();
        let renewed = auto(dir.path(), &names(&["localhost"])).unwrap();
        assert_ne!(fs::read(&renewed.cert).unwrap(), issued);
    }

    #[test]
    fn provided_files_must_hold_a_key_and_a_certificate() {
        let dir = tempfile::tempdir().unwrap();
        let made = auto(dir.path(), &names(&["localhost"])).unwrap();
        let provided_ok = provided(&made.cert, &made.key).unwrap();
        assert_ne!(
            provided_ok.fingerprint, made.fingerprint,
            "the server's own"
        );
        let wrong = provided(&made.cert, &made.cert).unwrap_err();
        assert!(wrong.contains("is not a PEM private key"), "{wrong}");
        let missing = provided(&dir.path().join("nope.pem"), &made.key).unwrap_err();
        assert!(missing.contains("cannot read the certificate"), "{missing}");
    }
}
