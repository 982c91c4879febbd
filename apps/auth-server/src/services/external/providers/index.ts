// The 18 providers by name. Each module declares its endpoints, default scopes and how its profile maps.
import type { ProviderName } from '@keyzone/config';
import type { ProviderDefinition } from '../provider-types';
import { apple } from './apple';
import { azure } from './azure';
import { bitbucket } from './bitbucket';
import { discord } from './discord';
import { facebook } from './facebook';
import { figma } from './figma';
import { github } from './github';
import { gitlab } from './gitlab';
import { google } from './google';
import { keycloak } from './keycloak';
import { linkedin } from './linkedin';
import { notion } from './notion';
import { slack } from './slack';
import { snapchat } from './snapchat';
import { spotify } from './spotify';
import { twitch } from './twitch';
import { twitter } from './twitter';
import { workos } from './workos';

export const PROVIDERS: Readonly<Record<ProviderName, ProviderDefinition>> = {
  apple, azure, bitbucket, discord, facebook, figma, github, gitlab, google,
  keycloak, linkedin, notion, snapchat, spotify, slack, twitch, twitter, workos,
};
