use super::*;
pub struct Deliveroo;
impl Adapter for Deliveroo {
    fn name(&self) -> &'static str {
        "deliveroo"
    }
    fn kinds(&self) -> &'static [IntegrationKind] {
        &[IntegrationKind::Delivery]
    }
    fn verify(&self, _: &Received, _: &Credentials) -> Result<Verified, Rejection> {
        Err(Rejection::unauthorized("stub"))
    }
    fn parse(&self, _: IntegrationKind, _: &[u8]) -> Result<Vec<Instruction>, Failure> {
        Err(Failure::Invalid("stub".into()))
    }
}
