import { validationError } from '../http/api-error.ts';

// The images the simulated MAAS can deploy: what boot-resources/ lists and what deploy checks
// distro_series and hwe_kernel against (maasserver/utils/osystems.py list_all_usable_osystems,
// get_working_kernel; forms MachineForm). Synced Ubuntu LTS images for every architecture of the
// fleet, one resource per kernel (architecture amd64/ga-22.04, amd64/hwe-22.04: a synced image's
// subarch is its kernel), and the uploaded custom images a simulator is seeded with.

/** A custom image the simulator starts with (MaasSimOptions.bootResources). */
export interface SeedBootResource {
  /** `custom/my-image` or a bare `my-image` (MAAS files a name without '/' under custom). */
  readonly name: string;
  /** arch/subarch; default amd64/generic. */
  readonly architecture?: string;
  readonly title?: string;
  /** The Ubuntu release the image is built on (ubuntu/jammy): its kernels boot the image. */
  readonly baseImage?: string;
}

export interface BootImage {
  readonly id: number;
  readonly type: 'Synced' | 'Uploaded';
  readonly name: string;
  readonly architecture: string;
  readonly subarches: string;
  readonly title: string;
  readonly baseImage?: string;
}

// MAAS's titles (distro-info) for the Ubuntu releases the simulator syncs: version, codename.
const UBUNTU: Readonly<Record<string, { version: string; title: string }>> = {
  focal: { version: '20.04', title: '20.04 LTS "Focal Fossa"' },
  jammy: { version: '22.04', title: '22.04 LTS "Jammy Jellyfish"' },
  noble: { version: '24.04', title: '24.04 LTS "Noble Numbat"' },
};
const SYNCED_SERIES = ['focal', 'jammy', 'noble'] as const;
// MAAS's commissioning_distro_series: non-Ubuntu images boot the installer with its kernels.
export const COMMISSIONING_SERIES = 'noble';
// Hardware sync needs a Linux image (MachineForm.clean; LINUX_OSYSTEMS and custom).
const LINUX_OSYSTEMS = new Set(['ubuntu', 'centos', 'rhel', 'ol', 'custom']);
const OS_TITLES: Readonly<Record<string, string>> = { ubuntu: 'Ubuntu', centos: 'CentOS', rhel: 'Red Hat Enterprise Linux', custom: 'Custom' };

/** `custom/x` for a bare name, else the name as listed. */
function keyOf(name: string): string {
  return name.includes('/') ? name : `custom/${name}`;
}

function split(key: string): { osystem: string; release: string } {
  const slash = key.indexOf('/');
  return { osystem: key.slice(0, slash), release: key.slice(slash + 1) };
}

/** A kernel or release string as a comparable version (get_release_version_from_string, simplified to the LTS kernels synced here). */
function versionOf(text: string): [number, number, number] {
  const series = UBUNTU[text];
  if (series) return [...(series.version.split('.').map(Number) as [number, number]), 0];
  const m = /^(ga|hwe)-(\d+)\.(\d+)(-edge)?$/.exec(text);
  if (!m) return [0, 0, 0];
  const weight = m[1] === 'ga' ? 1 : m[4] ? 3 : 2;
  return [Number(m[2]), Number(m[3]), weight];
}

function newerOrSame(a: string, b: string): boolean {
  const [x, y] = [versionOf(a), versionOf(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return true;
}

export class BootImages {
  private readonly uploaded: SeedBootResource[];

  constructor(private readonly architectures: () => readonly string[], seeds: readonly SeedBootResource[] = []) {
    this.uploaded = [...seeds];
  }

  /** boot-resources/ in MAAS's order: rtype (synced first), name, architecture. */
  list(): BootImage[] {
    const arches = [...new Set(this.architectures().map((a) => a.split('/')[0] ?? 'amd64'))].sort();
    const synced = SYNCED_SERIES.flatMap((series) => {
      const v = UBUNTU[series]?.version ?? '';
      return arches.flatMap((arch) => [`ga-${v}`, `hwe-${v}`].map((kernel) => ({
        type: 'Synced' as const, name: `ubuntu/${series}`, architecture: `${arch}/${kernel}`, subarches: `generic,${kernel}`, title: UBUNTU[series]?.title ?? series,
      })));
    });
    const uploaded = [...this.uploaded].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((u) => ({
      type: 'Uploaded' as const, name: u.name, architecture: u.architecture ?? 'amd64/generic', subarches: 'generic',
      title: u.title ?? split(keyOf(u.name)).release, ...(u.baseImage ? { baseImage: u.baseImage } : {}),
    }));
    return [...synced, ...uploaded].map((r, i) => ({ id: i + 1, ...r }));
  }

  /**
   * MachineForm.set_distro_series then the distro_series field's choices: the release named by
   * `series` (ubuntu/jammy, jammy, 22.04, custom/my-image, my-image, an OS name for its latest
   * release), or MAAS's 400 listing the valid choices.
   */
  resolve(series: string): { osystem: string; release: string } {
    const images = this.list();
    const keys = [...new Set(images.map((r) => keyOf(r.name)))];
    const [osName, wanted] = series.includes('/') ? [series.slice(0, series.indexOf('/')), series.slice(series.indexOf('/') + 1)] : [undefined, series];
    for (const key of keys) {
      const { osystem, release } = split(key);
      if (osName !== undefined && osName !== osystem) continue;
      if (release === wanted || UBUNTU[release]?.version === wanted) return { osystem, release };
    }
    // An OS name alone deploys its newest release (find_osystem_and_release_from_release_name_or_alias).
    const ofOs = keys.map(split).filter((k) => osName === undefined && k.osystem === wanted).sort((a, b) => (a.release < b.release ? 1 : -1));
    if (ofOs[0]) return ofOs[0];
    throw validationError({ distro_series: [`'${series}' is not a valid distro_series.  It should be one of: ${this.choices().map((c) => `'${c}'`).join(', ')}.`] });
  }

  // list_release_choices: '' first, then by OS title and release title.
  private choices(): string[] {
    const seen = new Map<string, { osTitle: string; title: string }>();
    for (const r of this.list()) {
      const key = keyOf(r.name);
      const { osystem } = split(key);
      if (!seen.has(key)) seen.set(key, { osTitle: OS_TITLES[osystem] ?? osystem, title: r.title });
    }
    const sorted = [...seen.entries()].sort(([, a], [, b]) => (a.osTitle !== b.osTitle ? (a.osTitle < b.osTitle ? -1 : 1) : a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
    return ['', ...sorted.map(([key]) => key)];
  }

  /** Kernels synced for an Ubuntu release on an architecture (BootResource.objects.get_kernels). */
  private kernels(osRelease: string, arch: string): string[] {
    return this.list().filter((r) => r.name === osRelease && r.architecture.split('/')[0] === arch).map((r) => r.architecture.split('/')[1] ?? '')
      .sort((a, b) => (newerOrSame(a, b) ? (a === b ? 0 : 1) : -1));
  }

  /**
   * get_working_kernel: the kernel the machine deploys with, or MAAS's 400 on hwe_kernel. A
   * non-Ubuntu image boots with its base image's kernels (custom) or the commissioning release's.
   */
  workingKernel(requested: string | undefined, minimum: string | null, architecture: string, osystem: string, release: string): string {
    let [os, series] = [osystem, release];
    if (os === 'custom') {
      const base = this.uploaded.find((u) => keyOf(u.name) === `custom/${release}`)?.baseImage;
      if (base) [os, series] = [split(base).osystem, split(base).release];
    }
    if (os !== 'ubuntu') [os, series] = ['ubuntu', COMMISSIONING_SERIES];
    const osRelease = `${os}/${series}`;
    const arch = architecture.split('/')[0] ?? 'amd64';
    const available = this.kernels(osRelease, arch);
    const refuse = (message: string): never => {
      throw validationError({ hwe_kernel: [message] });
    };
    if (requested && /(^|-)(hwe|ga)(-|$)/.test(requested)) {
      if (!available.includes(requested)) refuse(`${requested} is not available for ${osRelease} on ${architecture}.`);
      if (!newerOrSame(requested, series)) refuse(`${requested} is too old to use on ${osRelease}.`);
      if (minimum && !newerOrSame(requested, minimum)) refuse(`chosen kernel (${requested}) is older than minimal kernel required by the machine (${minimum}).`);
      return requested;
    }
    if (minimum) {
      const fit = available.find((k) => newerOrSame(k, minimum) && newerOrSame(k, series));
      return fit ?? refuse(`${series} has no kernels available which meet min_hwe_kernel(${minimum}).`);
    }
    return available.find((k) => newerOrSame(k, series)) ?? refuse(`${series} has no kernels available.`);
  }

  /** validate_min_hwe_kernel: a compatibility level some synced kernel offers, or MAAS's 400. */
  checkMinimum(minimum: string): void {
    if (minimum === '') return;
    const levels = new Set(this.list().flatMap((r) => r.subarches.split(',')));
    if (!levels.has(minimum)) throw validationError({ min_hwe_kernel: [`No kernel matches ">=${minimum}" requirement.`] });
  }

  /** MachineForm.clean's hardware-sync rule. */
  checkHwSync(enable: boolean, osystem: string): void {
    if (enable && !LINUX_OSYSTEMS.has(osystem)) throw validationError({ enable_hw_sync: ['Hardware sync is only supported for Linux based image deploys.'] });
  }
}
