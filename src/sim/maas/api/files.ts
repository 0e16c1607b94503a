import type { Backend, CallContext, Handler, Reply, Resource } from '../backend.ts';
import { noContent, ok } from '../backend.ts';
import { fileJson, fileListJson } from '../files/file-store.ts';
import { badRequest, MaasApiError, notFound } from '../http/api-error.ts';

// files/ and files/{filename}/ (FilesHandler, AnonFilesHandler and FileHandler in
// src/maasserver/api/files.py): a user's own files; juju stores its bootstrap state here through
// gomaasapi. The texts and status codes are MAAS's, down to the 404 header of bug 1123986.

// What Django's HttpResponse says of content it is not told the type of.
const TEXT_HTML = 'text/html; charset=utf-8';

// get_mandatory_param: a missing parameter is a one-message MAASAPIValidationError, plain text.
function mandatory(c: CallContext, key: string): string {
  const value = c.params.get(key);
  if (value === undefined) throw badRequest(`No provided ${key}!`);
  return value;
}

const bytes = (content: Buffer, status: 200 | 201 = 200): Reply => ({ status, bytes: content, contentType: TEXT_HTML });

// get_file_by_name: the caller's own file, its raw content.
const getByName: Handler = (b, c) => {
  const file = b.files.byName(c.user.name, mandatory(c, 'filename'));
  if (!file) throw new MaasApiError(404, 'File not found');
  return bytes(file.content);
};

// get_file_by_key: anyone's file, for whoever has the key (also without credentials).
const getByKey: Handler = (b, c) => {
  const file = b.files.byKey(mandatory(c, 'key'));
  if (!file) throw notFound('FileStorage');
  return bytes(file.content);
};

// FilesHandler.create: multipart `filename` and one upload named `file`; the name is replaced if
// the caller has it already. 201 with an empty body.
function create(b: Backend, c: CallContext): Reply {
  const filename = c.params.get('filename');
  if (!filename) throw badRequest('Filename not supplied');
  const files = c.params.files;
  if (files.length === 0) throw badRequest('File not supplied');
  if (files.length !== 1) throw badRequest('Exactly one file must be supplied');
  const [upload] = files;
  // request.FILES['file'] of a single upload under another name is Django's
  // MultiValueDictKeyError, which MAAS answers as a 500 carrying its text.
  if (upload?.name !== 'file') throw new MaasApiError(500, "'file'");
  b.files.save(c.user.name, filename, upload.content);
  return bytes(Buffer.alloc(0), 201);
}

function remove(b: Backend, owner: string, filename: string): Reply {
  if (!b.files.remove(owner, filename)) throw notFound('FileStorage');
  return noContent;
}

export const FILE_RESOURCES: readonly Resource[] = [
  {
    name: 'files/',
    pattern: /^files\/(?:op-([^/]+))?$/,
    hasId: false,
    signatures: {
      'GET ': (b, c) => ok(b.files.list(c.user.name, c.params.get('prefix')).map(fileListJson)),
      'GET get': getByName,
      'GET get_by_key': getByKey,
      'POST ': create,
      'DELETE ': (b, c) => remove(b, c.user.name, mandatory(c, 'filename')),
    },
    // AnonFilesHandler: only get_by_key; a GET of anything else without credentials is a 400.
    anonymousSignatures: { 'GET get_by_key': getByKey },
  },
  {
    name: 'files/{filename}/',
    // The filename may hold slashes (MAAS's url pattern is `files/(?P<filename>.+)/`).
    pattern: /^files\/(.+)\/$/,
    hasId: true,
    signatures: {
      'GET ': (b, c) => {
        const file = b.files.byName(c.user.name, c.id);
        // A 404 that says the file is missing, not the endpoint (Launchpad bug 1123986).
        if (!file) throw new MaasApiError(404, 'Not Found', TEXT_HTML, { Workaround: 'bug1123986' });
        return ok(fileJson(file));
      },
      'DELETE ': (b, c) => remove(b, c.user.name, c.id),
    },
  },
];
