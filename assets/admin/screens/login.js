// Log in to the back office.

import { html } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { LoginForm } from "/shared/login.js";

const TEXT = {
  className: "login",
  brand: "Brigade",
  title: "Log in",
  intro: null,
  emailMissing: "Enter the email address of your account.",
  passwordMissing: "Enter your password.",
  submit: "Log in",
  submitting: "Logging in…",
};

export function Login() {
  return html`<${LoginForm} text=${TEXT} />`;
}
