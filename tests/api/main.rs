//! Integration tests: the real server over HTTP on a temp data dir.

mod helpers;
mod receiver;

mod admin;
mod architecture;
mod auth;
mod backup;
mod browser;
mod cli;
mod clock;
mod crash;
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
mod web;
mod webhooks;
