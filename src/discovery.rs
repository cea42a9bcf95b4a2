//! Terminals find the box: the server announces itself on the LAN with mDNS
//! and DNS-SD as a `_brigade._tcp` service, so a POS terminal or kitchen screen
//! can be set up without typing an address. The TXT record says how to talk to
//! it: the scheme, the API and admin paths, and the TLS fingerprint to pin.

use mdns_sd::{ServiceDaemon, ServiceInfo};

/// The DNS-SD service type browsed by terminals.
pub const SERVICE_TYPE: &str = "_brigade._tcp.local.";

/// The announcement, withdrawn when dropped (the server stopping).
pub struct Announcement {
    daemon: ServiceDaemon,
    fullname: String,
}

impl Announcement {
    /// Announces the server on every interface, with its addresses kept up to
    /// date as they change. `tls_fingerprint` is `None` for plain HTTP.
    pub fn start(port: u16, tls_fingerprint: Option<&str>) -> Result<Self, String> {
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        let host = if host.is_empty() {
            "brigade".into()
        } else {
            host
        };
        let mut properties = vec![
            (
                "scheme",
                if tls_fingerprint.is_some() {
                    "https"
                } else {
                    "http"
                },
            ),
            ("api", "/api/v1"),
            ("admin", "/admin/"),
            ("version", env!("CARGO_PKG_VERSION")),
        ];
        if let Some(fingerprint) = tls_fingerprint {
            properties.push(("tls_sha256", fingerprint));
        }
        let service = ServiceInfo::new(
            SERVICE_TYPE,
            &format!("Brigade on {host}"),
            &format!("{host}.local."),
            "",
            port,
            &properties[..],
        )
        .map_err(|e| format!("cannot describe the mDNS service: {e}"))?
        .enable_addr_auto();
        let fullname = service.get_fullname().to_string();
        let daemon = ServiceDaemon::new().map_err(|e| format!("cannot start mDNS: {e}"))?;
        daemon
            .register(service)
            .map_err(|e| format!("cannot announce the server on mDNS: {e}"))?;
        Ok(Announcement { daemon, fullname })
    }
}

impl Drop for Announcement {
    fn drop(&mut self) {
        // Best effort: terminals forget the service when its record expires anyway.
        if let Ok(done) = self.daemon.unregister(&self.fullname) {
            let _ = done.recv_timeout(std::time::Duration::from_secs(1));
        }
        let _ = self.daemon.shutdown();
    }
}
