// The logged-in session as the web apps follow it: it changes with a login or
// logout here or in another tab, and its token's end brings the login back,
// even on a screen nobody touches.

import { useEffect, useState } from "/shared/vendor/preact-htm-3.1.1.module.js";
import { logout, session } from "/shared/api.js";

/** The current session, or null; `endedMessage` is shown on the login after it expires. */
export function useSession(endedMessage) {
  const [current, setCurrent] = useState(session());
  useEffect(() => {
    const update = () => setCurrent(session());
    window.addEventListener("brigade:session", update);
    window.addEventListener("storage", update);
    return () => {
      window.removeEventListener("brigade:session", update);
      window.removeEventListener("storage", update);
    };
  }, []);
  useEffect(() => {
    if (!current) return undefined;
    // A timer waits at most about 24 days: a longer session (a paired
    // device's) is looked at again then.
    let timer = null;
    const check = () => {
      const left = current.expiresAt - Date.now();
      if (left <= 0) logout(endedMessage);
      else timer = setTimeout(check, Math.min(left, 2 ** 31 - 1));
    };
    check();
    return () => clearTimeout(timer);
  }, [current?.token]);
  return current;
}
