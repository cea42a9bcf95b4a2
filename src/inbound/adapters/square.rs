use super::*;
pub struct Square;
impl Adapter for Square {
    fn name(&self) -> &'static str {
        "square"
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
