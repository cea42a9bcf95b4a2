//! The compact seatmap POS terminals poll: only what a terminal draws.

use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::dining::seatmap::{Seatmap, SeatmapTable, TableState};

#[derive(Debug, Serialize, ToSchema)]
pub struct PosTable {
    pub id: String,
    pub name: String,
    pub seats: i64,
    pub state: TableState,
    pub session_id: Option<String>,
    pub party_size: Option<i64>,
    pub open_order_count: i64,
    pub open_order_amount: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PosFloor {
    pub id: String,
    pub name: String,
    pub tables: Vec<PosTable>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PosSeatmap {
    pub floors: Vec<PosFloor>,
    pub generated_at: String,
}

fn compact_table(table: SeatmapTable) -> PosTable {
    PosTable {
        id: table.table.id,
        name: table.table.name,
        seats: table.table.seats,
        state: table.state,
        session_id: table.session.as_ref().map(|s| s.id.clone()),
        party_size: table.session.as_ref().map(|s| s.party_size),
        open_order_count: table.session.as_ref().map_or(0, |s| s.open_order_count),
        open_order_amount: table.session.as_ref().map_or(0.0, |s| s.open_order_amount),
    }
}

pub fn compact(seatmap: Seatmap) -> PosSeatmap {
    PosSeatmap {
        floors: seatmap
            .floors
            .into_iter()
            .map(|floor| PosFloor {
                id: floor.id,
                name: floor.name,
                tables: floor.tables.into_iter().map(compact_table).collect(),
            })
            .collect(),
        generated_at: seatmap.generated_at,
    }
}
