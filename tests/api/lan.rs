//! The box on the LAN: HTTPS with its own certificate authority or provided
//! files, trusted by clients that know only that CA, the settings file, and the
//! mDNS announcement terminals browse for.

use std::path::Path;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::process::{brigade, serve_over, serve_with, stdout};

/// A client that trusts exactly one certificate authority, and no public one.
fn trusting(ca_pem: &[u8]) -> ureq::Agent {
    let ca = ureq::tls::Certificate::from_pem(ca_pem).expect("a PEM certificate");
    let tls = ureq::tls::TlsConfig::builder()
        .root_certs(ureq::tls::RootCerts::new_with_certs(&[ca]))
        .build();
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .tls_config(tls)
        .build()
        .into()
}

fn sha256_fingerprint(pem_text: &[u8]) -> String {
    let der = pem::parse(pem_text).unwrap();
    Sha256::digest(der.contents())
        .iter()
        .map(|byte| format!("{byte:02X}"))
        .collect::<Vec<_>>()
        .join(":")
}

fn value_after(lines: &[String], label: &str) -> String {
    lines
        .iter()
        .find_map(|line| line.trim().strip_prefix(label))
        .unwrap_or_else(|| panic!("no {label:?} in {lines:#?}"))
        .trim()
        .to_string()
}

fn export_ca(data_dir: &Path) -> Vec<u8> {
    let out = data_dir.with_extension("ca.pem");
    stdout(&brigade(
        data_dir,
        &["tls", "export-ca", "--out", out.to_str().unwrap()],
    ));
    std::fs::read(out).unwrap()
}

#[test]
fn tls_auto_serves_https_trusted_through_the_exported_ca_and_keeps_it_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    // A terminal installs the CA before it ever talks to the box.
    let ca = export_ca(&data_dir);
    assert!(String::from_utf8_lossy(&ca).starts_with("-----BEGIN CERTIFICATE-----"));
    let printed = stdout(&brigade(&data_dir, &["tls", "export-ca"]));
    assert_eq!(
        printed.trim(),
        String::from_utf8_lossy(&ca).trim(),
        "stdout form"
    );

    let client = trusting(&ca);
    let mut server = serve_over(&data_dir, &["--tls", "auto"], "https", client.clone());
    assert!(server.base.starts_with("https://"));
    assert_eq!(
        value_after(&server.output, "TLS CA fingerprint (SHA-256):"),
        sha256_fingerprint(&ca),
        "the printed fingerprint is the exported CA's"
    );
    assert!(
        value_after(&server.output, "Admin app:").starts_with("https://"),
        "{:?}",
        server.output
    );
    let health = client
        .get(format!("{}/healthz", server.base))
        .call()
        .expect("the CA-trusting client connects");
    assert_eq!(health.status(), 200);
    // The certificate also names the box as `localhost`.
    let port = server.base.rsplit(':').next().unwrap().to_string();
    let by_name = client
        .get(format!("https://localhost:{port}/readyz"))
        .call()
        .expect("localhost is in the certificate");
    assert_eq!(by_name.status(), 200);

    // A client with only the public roots refuses the box's certificate, and
    // plain HTTP is not served on the HTTPS port.
    let public_roots: ureq::Agent = ureq::Agent::config_builder().build().into();
    let refused = public_roots
        .get(format!("{}/healthz", server.base))
        .call()
        .expect_err("an unknown CA is refused");
    assert!(
        format!("{refused:?}").contains("UnknownIssuer"),
        "{refused:?}"
    );
    assert!(crate::helpers::agent()
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .call()
        .map(|response| response.status() != 200)
        .unwrap_or(true));

    // A restart reuses the CA and the server certificate it issued.
    let issued = std::fs::read(data_dir.join("tls/server.pem")).unwrap();
    server.kill();
    let server = serve_over(&data_dir, &["--tls", "auto"], "https", client.clone());
    assert_eq!(
        value_after(&server.output, "TLS CA fingerprint (SHA-256):"),
        sha256_fingerprint(&ca)
    );
    assert_eq!(
        std::fs::read(data_dir.join("tls/server.pem")).unwrap(),
        issued
    );
    assert_eq!(
        client
            .get(format!("{}/healthz", server.base))
            .call()
            .unwrap()
            .status(),
        200
    );
}

#[test]
fn provided_certificate_files_are_served_and_must_come_as_a_pair() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    // The restaurant's own CA and a certificate it issued for the box.
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "Corner Cafe IT");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_string()]).unwrap();
    let cert = params.signed_by(&key, &issuer).unwrap();
    let (cert_path, key_path) = (dir.path().join("box.pem"), dir.path().join("box-key.pem"));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();

    let client = trusting(ca_cert.pem().as_bytes());
    let server = serve_over(
        &data_dir,
        &[
            "--no-demo",
            "--tls-cert",
            cert_path.to_str().unwrap(),
            "--tls-key",
            key_path.to_str().unwrap(),
        ],
        "https",
        client.clone(),
    );
    assert_eq!(
        value_after(&server.output, "TLS certificate fingerprint (SHA-256):"),
        sha256_fingerprint(cert.pem().as_bytes())
    );
    let health = client.get(format!("{}/healthz", server.base)).call();
    assert_eq!(health.unwrap().status(), 200);
    assert!(
        !data_dir.join("tls").exists(),
        "no CA of its own is made when files are provided"
    );

    // Mistakes stop the server before it serves; another data dir, as this one is in use.
    let data_dir = dir.path().join("other");
    let alone = brigade(
        &data_dir,
        &["serve", "--tls-cert", cert_path.to_str().unwrap()],
    );
    assert!(!alone.status.success());
    assert!(
        String::from_utf8_lossy(&alone.stderr).contains("--tls-key"),
        "{}",
        String::from_utf8_lossy(&alone.stderr)
    );
    let not_a_key = brigade(
        &data_dir,
        &[
            "serve",
            "--tls-cert",
            cert_path.to_str().unwrap(),
            "--tls-key",
            cert_path.to_str().unwrap(),
        ],
    );
    assert!(!not_a_key.status.success());
    assert!(
        String::from_utf8_lossy(&not_a_key.stderr).contains("is not a PEM private key"),
        "{}",
        String::from_utf8_lossy(&not_a_key.stderr)
    );
}

#[test]
fn the_settings_file_fills_in_what_flags_and_environment_leave_unset() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("from-file");
    let settings = dir.path().join("brigade.toml");
    std::fs::write(
        &settings,
        format!(
            "data_dir = {:?}\nno_demo = true\nlog_level = \"off\"\n",
            data_dir.to_str().unwrap()
        ),
    )
    .unwrap();
    // `tenant list` reads the data dir named by the file.
    let listed = std::process::Command::new(env!("CARGO_BIN_EXE_brigade"))
        .args(["--config", settings.to_str().unwrap(), "tenant", "create"])
        .args(["--name", "Filed Cafe", "--slug", "filed"])
        .env_remove("BRIGADE_DATA_DIR")
        .output()
        .unwrap();
    stdout(&listed);
    assert!(data_dir.join("registry.db").exists(), "the file's data_dir");

    // The environment overrides the file: another data dir.
    let other = dir.path().join("from-env");
    let overridden = std::process::Command::new(env!("CARGO_BIN_EXE_brigade"))
        .args(["--config", settings.to_str().unwrap(), "tenant", "list"])
        .env("BRIGADE_DATA_DIR", &other)
        .output()
        .unwrap();
    assert!(!stdout(&overridden).contains("filed"));
    assert!(other.join("registry.db").exists());

    // A flag overrides both.
    let flagged = dir.path().join("from-flag");
    let by_flag = std::process::Command::new(env!("CARGO_BIN_EXE_brigade"))
        .args(["--config", settings.to_str().unwrap()])
        .args(["--data-dir", flagged.to_str().unwrap(), "tenant", "list"])
        .env("BRIGADE_DATA_DIR", &other)
        .output()
        .unwrap();
    stdout(&by_flag);
    assert!(flagged.join("registry.db").exists());

    // `serve` takes the file's no_demo: the server starts with no tenant.
    let server = serve_with(&data_dir, &["--config", settings.to_str().unwrap()]);
    assert!(
        !server
            .output
            .iter()
            .any(|line| line.contains("demo tenant")),
        "{:?}",
        server.output
    );

    // A mistake in the file stops the command with the file's name and the key.
    std::fs::write(&settings, "prot = 8000\n").unwrap();
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_brigade"))
        .args(["--config", settings.to_str().unwrap(), "tenant", "list"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("brigade.toml") && said.contains("\"prot\" is not a setting"),
        "{said}"
    );
}

#[test]
fn the_server_announces_itself_on_mdns_with_its_paths_and_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let ca = export_ca(&data_dir);
    let server = serve_over(
        &data_dir,
        &["--no-demo", "--tls", "auto", "--mdns", "on"],
        "https",
        trusting(&ca),
    );
    let port: u16 = server.base.rsplit(':').next().unwrap().parse().unwrap();
    let quiet_dir = dir.path().join("quiet");
    let quiet = serve_with(&quiet_dir, &["--no-demo", "--mdns", "off"]);
    let quiet_port: u16 = quiet.base.rsplit(':').next().unwrap().parse().unwrap();

    let browser = mdns_sd::ServiceDaemon::new().unwrap();
    let events = browser.browse("_brigade._tcp.local.").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut ports_seen = vec![];
    let found = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no _brigade._tcp service found");
        if let Ok(mdns_sd::ServiceEvent::ServiceResolved(service)) = events.recv_timeout(left) {
            ports_seen.push(service.get_port());
            // Other test servers may announce too; ours is the one on our port.
            if service.get_port() == port {
                break service;
            }
        }
    };
    assert_eq!(found.get_property_val_str("scheme"), Some("https"));
    assert_eq!(found.get_property_val_str("api"), Some("/api/v1"));
    assert_eq!(found.get_property_val_str("admin"), Some("/admin/"));
    assert_eq!(
        found.get_property_val_str("tls_sha256"),
        Some(sha256_fingerprint(&ca).as_str())
    );
    assert!(!found.get_addresses().is_empty());

    // The server started with `--mdns off` answers but is not announced, while
    // the browse goes on a little longer.
    assert_eq!(
        crate::helpers::agent()
            .get(format!("{}/healthz", quiet.base))
            .call()
            .unwrap()
            .status(),
        200
    );
    while let Ok(event) = events.recv_timeout(Duration::from_secs(2)) {
        if let mdns_sd::ServiceEvent::ServiceResolved(service) = event {
            ports_seen.push(service.get_port());
        }
    }
    assert!(!ports_seen.contains(&quiet_port), "{ports_seen:?}");
    let _ = browser.shutdown();
}
