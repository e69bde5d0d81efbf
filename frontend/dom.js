/** A new element: `el("p", {class: "x"}, "text", child)`. Text is always text, never HTML. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

export const csrfToken = () => document.querySelector('meta[name="csrf-token"]')?.content ?? "";

export class HttpError extends Error {
  constructor(response, data) {
    super(typeof data?.detail === "string" ? data.detail : `HTTP ${response.status}`);
    this.status = response.status;
    this.retryAfter = Number(response.headers.get("Retry-After")) || null;
    this.data = data;
  }
}

/** JSON over fetch with the session cookie and the CSRF header; throws HttpError. */
export async function api(method, url, body) {
  const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  if (method !== "GET") init.headers["X-CSRF-Token"] = csrfToken();
  const response = await fetch(url, init);
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) throw new HttpError(response, data);
  return data;
}
