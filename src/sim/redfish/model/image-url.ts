// An image URL a client hands the BMC (InsertMedia's Image, SimpleUpdate's ImageURI) may carry a
// user and password in its authority or a signed query (Swift's temp_url_sig): a name the BMC
// makes from it (ImageName, a task's Name, a refusal's message) is the file name alone.

/** The last segment of the URL's path, without authority, query or fragment; null when it has none. */
export function imageFileName(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  return path.split('/').filter((segment) => segment !== '').pop() ?? null;
}
