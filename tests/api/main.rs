//! Integration tests: the real server over HTTP on a temp data dir.

mod helpers;
mod receiver;

mod admin;
mod architecture;
mod auth;
mod backup;
mod browser;
mod checkout;
mod cli;
mod clock;
mod crash;
mod devices;
mod errors;
mod health;
mod kitchen;
mod logging;
mod menu;
mod openapi;
mod orders;
mod payments;
mod persistence;
mod process;
mod public;
mod queue;
mod refunds;
mod reservations;
mod schema_agreement;
mod sessions;
mod settings;
mod split;
mod sweep;
mod tables;
mod users;
mod web;
mod webhooks;
