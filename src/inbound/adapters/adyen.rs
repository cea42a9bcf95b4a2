use super::*;
pub struct Adyen;
impl Adapter for Adyen {
    fn name(&self) -> &'static str {
        "adyen"
    }
    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Payment]
    }
    fn verify(&self, _: &Received, _: &Credentials) -> Result<Verified, Rejection> {
        Err(Rejection::unauthorized("stub"))
    }
    fn parse(&self, _: IntegrationKind, _: &[u8]) -> Result<Vec<Instruction>, Failure> {
        Err(Failure::Invalid("stub".into()))
    }
}
