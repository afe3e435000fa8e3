/*
 * Notiflow web push: subscribe this browser and get the subscription to store.
 *
 *   const subscription = await notiflowPushSubscribe({
 *     serviceWorker: "/notiflow-sw.js",          // service-worker.js, served from your origin
 *     vapidPublicKey: "<NOTIFLOW_VAPID_PUBLIC_KEY>",
 *   });
 *   // then store it in the person's recipient.channels.webpush list (your backend, through
 *   // Notiflow's recipients API); null when the person refused or the browser cannot push.
 *
 * Call it from a user gesture (a click): browsers refuse permission prompts otherwise. Calling
 * it again returns the same subscription while it lives; store it again if it changed.
 */
(function (global) {
  "use strict";

  function keyBytes(base64url) {
    const padded = base64url + "=".repeat((4 - (base64url.length % 4)) % 4);
    const raw = atob(padded.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  async function notiflowPushSubscribe(options) {
    if (!("serviceWorker" in navigator) || !("PushManager" in global)) {
      return null;
    }
    if ((await Notification.requestPermission()) !== "granted") {
      return null;
    }
    const registration = await navigator.serviceWorker.register(options.serviceWorker);
    await navigator.serviceWorker.ready;
    const existing = await registration.pushManager.getSubscription();
    const subscription =
      existing ||
      (await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(options.vapidPublicKey),
      }));
    return subscription.toJSON(); // {"endpoint", "expirationTime", "keys": {"p256dh", "auth"}}
  }

  global.notiflowPushSubscribe = notiflowPushSubscribe;
})(typeof window !== "undefined" ? window : self);
