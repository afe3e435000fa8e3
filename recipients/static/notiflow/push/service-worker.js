/*
 * Notiflow web push: the service worker that shows a `webpush` node's notification.
 *
 * Serve this file from YOUR site's origin (a service worker must come from the origin of the
 * page that registers it), e.g. as /notiflow-sw.js, and register it with subscribe.js.
 *
 * Each push carries JSON: {"title", "body", "url"?, "icon"?, "tag"}. `tag` is the message's id,
 * the same on every resend of one message: a second copy (a resend from a worker's crash
 * window) replaces the first notification instead of showing beside it.
 */
self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (error) {
    message = { title: event.data ? event.data.text() : "" };
  }
  const options = {
    body: message.body || "",
    tag: message.tag,
    icon: message.icon,
    data: { url: message.url || "/" },
  };
  event.waitUntil(self.registration.showNotification(message.title || "", options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url, self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url === url);
      return open ? open.focus() : self.clients.openWindow(url);
    }),
  );
});
