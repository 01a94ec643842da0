// A small Marketplace image catalogue: publishers → offers → skus → versions, as Compute's VirtualMachineImages API
// lists them (`…/locations/{location}/publishers/{publisher}/artifacttypes/vmimage/offers/{offer}/skus/{sku}/versions`),
// and the image alias document the Azure CLI reads (`az vm create --image Ubuntu2204`, the cloud's vmImageAliasDoc).
// The images are those the docs, Deck's defaults and the Azure CLI's aliases name: Canonical's Ubuntu 16.04, 18.04,
// 20.04, 22.04 and 24.04, Windows Server 2016, 2019 and 2022. Every location offers every image. Anything else is
// Azure's 404 for an image that is not there.
import { ArmError, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { send } from "./http.ts";
import type { JsonObject } from "./json.ts";
import type { RouteParams } from "./router.ts";
import { normalizeLocation } from "./vmss-model.ts";

interface ImageSku {
  name: string;
  os: "Linux" | "Windows";
  hyperVGeneration: "V1" | "V2";
  /** Oldest first. */
  versions: string[];
}

interface Offer {
  publisher: string;
  name: string;
  skus: ImageSku[];
}

const linux = (name: string, hyperVGeneration: "V1" | "V2", versions: string[]): ImageSku => ({
  name,
  os: "Linux",
  hyperVGeneration,
  versions,
});
const windows = (name: string, hyperVGeneration: "V1" | "V2", versions: string[]): ImageSku => ({
  name,
  os: "Windows",
  hyperVGeneration,
  versions,
});

export const IMAGE_CATALOGUE: readonly Offer[] = [
  {
    publisher: "Canonical",
    name: "UbuntuServer",
    skus: [
      linux("16.04-LTS", "V1", ["16.04.202104160", "16.04.202109280"]),
      linux("18.04-LTS", "V1", ["18.04.202306070", "18.04.202401161"]),
      linux("18_04-lts-gen2", "V2", ["18.04.202306070", "18.04.202401161"]),
    ],
  },
  {
    publisher: "Canonical",
    name: "0001-com-ubuntu-server-focal",
    skus: [
      linux("20_04-lts", "V1", ["20.04.202403050", "20.04.202404080"]),
      linux("20_04-lts-gen2", "V2", ["20.04.202403050", "20.04.202404080"]),
    ],
  },
  {
    publisher: "Canonical",
    name: "0001-com-ubuntu-server-jammy",
    skus: [
      linux("22_04-lts", "V1", ["22.04.202403280", "22.04.202404080"]),
      linux("22_04-lts-gen2", "V2", ["22.04.202403280", "22.04.202404080"]),
    ],
  },
  {
    publisher: "Canonical",
    name: "ubuntu-24_04-lts",
    // 24.04.202611: the build the service's examples and tests roll out as "a new image"
    skus: [linux("server", "V2", ["24.04.202404230", "24.04.202611"]), linux("minimal", "V2", ["24.04.202404230"])],
  },
  {
    publisher: "MicrosoftWindowsServer",
    name: "WindowsServer",
    skus: [
      windows("2016-Datacenter", "V1", ["14393.6529.231202", "14393.8524.251022"]),
      windows("2019-Datacenter", "V1", ["17763.5576.240304", "17763.5696.240406"]),
      windows("2022-Datacenter", "V1", ["20348.2340.240303", "20348.2402.240405"]),
      windows("2022-datacenter-g2", "V2", ["20348.2340.240303", "20348.2402.240405"]),
      windows("2022-datacenter-azure-edition-core", "V2", ["20348.2340.240303", "20348.2402.240405"]),
    ],
  },
];

/** The Azure CLI's aliases for the catalogue's images (its alias document's names, publishers, offers and skus). */
const ALIASES: Record<"Linux" | "Windows", Record<string, [publisher: string, offer: string, sku: string]>> = {
  Linux: {
    UbuntuLTS: ["Canonical", "UbuntuServer", "18.04-LTS"],
    Ubuntu2004: ["Canonical", "0001-com-ubuntu-server-focal", "20_04-lts-gen2"],
    Ubuntu2204: ["Canonical", "0001-com-ubuntu-server-jammy", "22_04-lts-gen2"],
  },
  Windows: {
    Win2022Datacenter: ["MicrosoftWindowsServer", "WindowsServer", "2022-Datacenter"],
    Win2022AzureEditionCore: ["MicrosoftWindowsServer", "WindowsServer", "2022-datacenter-azure-edition-core"],
    Win2019Datacenter: ["MicrosoftWindowsServer", "WindowsServer", "2019-Datacenter"],
    Win2016Datacenter: ["MicrosoftWindowsServer", "WindowsServer", "2016-Datacenter"],
  },
};

/** Where the simulator serves the alias document: the path of the one Azure's public cloud names. */
export const IMAGE_ALIAS_DOC_PATH = "/arm-compute/quickstart-templates/aliases.json";

/** The alias document, in the shape of Azure's (a template's outputs.aliases.value, per OS). */
export function imageAliasDoc(): JsonObject {
  const value: JsonObject = {};
  for (const [os, aliases] of Object.entries(ALIASES)) {
    value[os] = Object.fromEntries(
      Object.entries(aliases).map(([alias, [publisher, offer, sku]]) => [
        alias,
        { publisher, offer, sku, version: "latest", architecture: "x64" },
      ]),
    );
  }
  return {
    $schema: "https://schema.management.azure.com/schemas/2015-01-01/deploymentTemplate.json#",
    contentVersion: "1.0.0.0",
    parameters: {},
    variables: {},
    resources: [],
    outputs: { aliases: { type: "object", value } },
  };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function notFound(): ArmError {
  return new ArmError(404, "NotFound", "Artifact: VMImage was not found.");
}

function base(sim: SimulatorContext, params: RouteParams): string {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  return `/Subscriptions/${sim.state.subscriptionId}/Providers/Microsoft.Compute/Locations/${normalizeLocation(params.location)}/Publishers`;
}

function offersOf(params: RouteParams): Offer[] {
  const offers = IMAGE_CATALOGUE.filter((o) => same(o.publisher, params.publisher));
  if (offers.length === 0) throw notFound();
  return offers;
}

function offerOf(params: RouteParams): Offer {
  const offer = offersOf(params).find((o) => same(o.name, params.offer));
  if (!offer) throw notFound();
  return offer;
}

function skuOf(params: RouteParams): { offer: Offer; sku: ImageSku } {
  const offer = offerOf(params);
  const sku = offer.skus.find((s) => same(s.name, params.sku));
  if (!sku) throw notFound();
  return { offer, sku };
}

const entry = (location: string, name: string, id: string): JsonObject => ({
  location: normalizeLocation(location),
  name,
  id,
});

const listPublishers: Handler = (ctx, sim, params) => {
  const root = base(sim, params);
  const names = [...new Set(IMAGE_CATALOGUE.map((o) => o.publisher))];
  send(
    ctx,
    200,
    names.map((n) => entry(params.location, n, `${root}/${n}`)),
  );
};

const listOffers: Handler = (ctx, sim, params) => {
  const root = base(sim, params);
  const offers = offersOf(params);
  send(
    ctx,
    200,
    offers.map((o) => entry(params.location, o.name, `${root}/${o.publisher}/ArtifactTypes/VMImage/Offers/${o.name}`)),
  );
};

const listSkus: Handler = (ctx, sim, params) => {
  const root = base(sim, params);
  const offer = offerOf(params);
  send(
    ctx,
    200,
    offer.skus.map((s) => ({
      properties: { automaticOSUpgradeProperties: { automaticOSUpgradeSupported: false } },
      ...entry(
        params.location,
        s.name,
        `${root}/${offer.publisher}/ArtifactTypes/VMImage/Offers/${offer.name}/Skus/${s.name}`,
      ),
    })),
  );
};

function versionsPath(root: string, offer: Offer, sku: ImageSku): string {
  return `${root}/${offer.publisher}/ArtifactTypes/VMImage/Offers/${offer.name}/Skus/${sku.name}/Versions`;
}

/** Versions, oldest first; `$orderby=name desc` newest first, `$top` the first so many (how clients find "latest"). */
const listVersions: Handler = (ctx, sim, params) => {
  const root = base(sim, params);
  const { offer, sku } = skuOf(params);
  let versions = [...sku.versions];
  const orderby = ctx.url.searchParams.get("$orderby");
  if (orderby !== null && /\bdesc\b/i.test(orderby)) versions.reverse();
  const top = ctx.url.searchParams.get("$top");
  if (top !== null) {
    if (!/^\d+$/.test(top)) throw new ArmError(400, "InvalidParameter", `The value of parameter $top is invalid.`);
    versions = versions.slice(0, Number(top));
  }
  send(
    ctx,
    200,
    versions.map((v) => entry(params.location, v, `${versionsPath(root, offer, sku)}/${v}`)),
  );
};

const getVersion: Handler = (ctx, sim, params) => {
  const root = base(sim, params);
  const { offer, sku } = skuOf(params);
  const version = same(params.version, "latest") ? sku.versions.at(-1) : sku.versions.find((v) => v === params.version);
  if (version === undefined) throw notFound();
  send(ctx, 200, {
    properties: {
      hyperVGeneration: sku.hyperVGeneration,
      architecture: "x64",
      replicaType: "Unmanaged",
      disallowed: { vmDiskType: "Unmanaged" },
      automaticOSUpgradeProperties: { automaticOSUpgradeSupported: false },
      imageDeprecationStatus: { imageState: "Active" },
      osDiskImage: { operatingSystem: sku.os, sizeInBytes: sku.os === "Linux" ? 32212255232 : 136367309312 },
      dataDiskImages: [],
    },
    ...entry(params.location, version, `${versionsPath(root, offer, sku)}/${version}`),
  });
};

/** The image of a scale set's model exists in the catalogue (a platform image reference), or is not one. */
export function platformImageExists(publisher: string, offer: string, sku: string, version: string): boolean {
  const o = IMAGE_CATALOGUE.find((x) => same(x.publisher, publisher) && same(x.name, offer));
  const s = o?.skus.find((x) => same(x.name, sku));
  return s !== undefined && (same(version, "latest") || s.versions.includes(version));
}

const IMAGES = "/subscriptions/:subscriptionId/providers/Microsoft.Compute/locations/:location/publishers";

export function imageCatalogueRoutes(): [string, string, Route][] {
  const offers = `${IMAGES}/:publisher/artifacttypes/vmimage/offers`;
  return [
    ["GET", IMAGES, { handler: listPublishers }],
    ["GET", offers, { handler: listOffers }],
    ["GET", `${offers}/:offer/skus`, { handler: listSkus }],
    ["GET", `${offers}/:offer/skus/:sku/versions`, { handler: listVersions }],
    ["GET", `${offers}/:offer/skus/:sku/versions/:version`, { handler: getVersion }],
  ];
}
