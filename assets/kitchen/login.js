// Signing the screen in, once: the session stays in this browser until it ends
// or someone logs out from the menu.

import { html } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { LoginForm } from "/shared/login.js";

const TEXT = {
  className: "kds-login",
  brand: "Brigade kitchen",
  title: "Sign this screen in",
  intro: "Use the kitchen account. The screen stays signed in until someone logs out from its menu.",
  emailMissing: "Enter the email address of the kitchen account.",
  passwordMissing: "Enter the password.",
  submit: "Sign in",
  submitting: "Signing in…",
};

export function Login() {
  return html`<${LoginForm} text=${TEXT} />`;
}
