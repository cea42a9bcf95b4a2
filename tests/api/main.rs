//! Integration tests: the real server over HTTP on a temp data dir.

mod helpers;
mod receiver;

mod architecture;
mod auth;
mod browser;
mod cli;
mod clock;
mod crash;
mod devices;
mod errors;
mod kitchen;
mod menu;
mod openapi;
mod orders;
mod payments;
mod persistence;
mod process;
mod public;
mod queue;
mod reservations;
mod sessions;
mod settings;
mod sweep;
mod tables;
mod users;
mod web;
mod webhooks;
